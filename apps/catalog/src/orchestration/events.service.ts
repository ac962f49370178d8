/** Reading the stage-change log of runs. */
import { notFound, type Page, type Principal, type RunEventDto } from '@runbook/contracts';
import { isoOf, type PageInput } from '@runbook/db';
import { assertRunbookVisible } from '../access.js';
import type { RunEventRow } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { findRunbookById } from '../runbooks/runbooks.repository.js';
import { listEvents } from './run.repository.js';

function toRunEventDto(row: RunEventRow): RunEventDto {
  return {
    id: String(row.id),
    runbook_id: String(row.runbook_id),
    task_id: row.task_id === null ? null : String(row.task_id),
    kind: row.kind as RunEventDto['kind'],
    from_stage: row.from_stage,
    to_stage: row.to_stage,
    completion_type: row.completion_type,
    run_type: row.run_type as RunEventDto['run_type'],
    actor: { type: row.actor_type as RunEventDto['actor']['type'], id: row.actor_id },
    message: row.message,
    created_at: isoOf(row.created_at),
  };
}

/**
 * A page of runbook `runbookId`'s events (one task's when `taskId` is given), oldest first.
 * @throws {AppError} 404 missing or not visible; 400 `invalid_cursor`.
 */
export async function listRunEvents(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  taskId: number | undefined,
  page: PageInput,
): Promise<Page<RunEventDto>> {
  await assertRunbookVisible(deps, principal, runbookId);
  const result = await listEvents(deps.db, runbookId, taskId, page);
  if (result.items.length === 0 && !(await findRunbookById(deps.db, runbookId)))
    throw notFound('runbook', String(runbookId));
  return { ...result, items: result.items.map(toRunEventDto) };
}
