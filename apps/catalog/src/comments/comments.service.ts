/** Comments on runbooks and their tasks: any developer who can see the runbook may read and add them. */
import { type CommentDto, notFound, type Page, type Principal } from '@runbook/contracts';
import { isoOf, type PageInput } from '@runbook/db';
import { assertRunbookVisible } from '../access.js';
import type { CommentRow } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { actorOf } from '../orchestration/run.service.js';
import { findRunbookById } from '../runbooks/runbooks.repository.js';
import { findTask } from '../tasks/tasks.repository.js';
import * as repo from './comments.repository.js';

function toCommentDto(row: CommentRow): CommentDto {
  return {
    id: String(row.id),
    runbook_id: String(row.runbook_id),
    task_id: row.task_id === null ? null : String(row.task_id),
    body: row.body,
    author: { type: row.author_type as CommentDto['author']['type'], id: row.author_id },
    created_at: isoOf(row.created_at),
  };
}

/** @throws {AppError} 404 when the runbook (or its task `taskId`) does not exist or is not visible. */
async function assertSubject(deps: CatalogDeps, principal: Principal, runbookId: number, taskId?: number) {
  await assertRunbookVisible(deps, principal, runbookId);
  if (taskId !== undefined) {
    if (!(await findTask(deps.db, runbookId, taskId))) throw notFound('task', String(taskId));
  } else if (!(await findRunbookById(deps.db, runbookId))) {
    throw notFound('runbook', String(runbookId));
  }
}

/**
 * A page of comments of a runbook (all, including its tasks'), or of one task, oldest first.
 * @throws {AppError} 404; 400 `invalid_cursor`.
 */
export async function listComments(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  taskId: number | undefined,
  page: PageInput,
): Promise<Page<CommentDto>> {
  await assertSubject(deps, principal, runbookId, taskId);
  const result = await repo.listComments(deps.db, runbookId, taskId, page);
  return { ...result, items: result.items.map(toCommentDto) };
}

/** Adds a comment by `principal` to a runbook or one of its tasks. @throws {AppError} 404. */
export async function createComment(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  taskId: number | undefined,
  body: string,
): Promise<CommentDto> {
  await assertSubject(deps, principal, runbookId, taskId);
  const author = actorOf(principal);
  const id = await repo.insertComment(deps.db, {
    runbook_id: runbookId,
    task_id: taskId ?? null,
    author_type: author.type,
    author_id: author.id,
    body,
    created_at: deps.now(),
  });
  return toCommentDto((await repo.findComment(deps.db, id)) as CommentRow);
}
