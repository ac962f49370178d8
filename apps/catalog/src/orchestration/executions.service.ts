/** Reading the execution records of integration tasks. */
import { type ExecutionDto, notFound, type Page, type Principal } from '@runbook/contracts';
import { isoOf, msToIso, type PageInput } from '@runbook/db';
import { assertRunbookVisible } from '../access.js';
import type { TaskExecutionRow } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { findTask } from '../tasks/tasks.repository.js';
import * as repo from './executions.repository.js';

function toExecutionDto(row: TaskExecutionRow): ExecutionDto {
  return {
    id: String(row.id),
    task_id: String(row.task_id),
    runbook_id: String(row.runbook_id),
    integration_id: row.integration_id === null ? null : String(row.integration_id),
    attempt: row.attempt,
    idempotency_key: row.idempotency_key,
    outcome: row.outcome,
    sent: Boolean(row.sent),
    request_line: row.request_line,
    request_headers: JSON.parse(row.request_headers) as ExecutionDto['request_headers'],
    request_body: row.request_body,
    response_status: row.response_status,
    response_excerpt: row.response_excerpt,
    duration_ms: row.duration_ms,
    error_code: row.error_code,
    error_detail: row.error_detail,
    started_at: isoOf(row.started_at),
    finished_at: msToIso(row.finished_at),
  };
}

/**
 * A page of task `taskId`'s executions, oldest first.
 * @throws {AppError} 404 when runbook `runbookId` has no such task or is not visible; 400 `invalid_cursor`.
 */
export async function listExecutions(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  taskId: number,
  page: PageInput,
): Promise<Page<ExecutionDto>> {
  await assertRunbookVisible(deps, principal, runbookId);
  if (!(await findTask(deps.db, runbookId, taskId))) throw notFound('task', String(taskId));
  const result = await repo.listExecutions(deps.db, taskId, page);
  return { ...result, items: result.items.map(toExecutionDto) };
}
