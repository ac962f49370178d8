/** The only code that touches task_executions: one row per attempt to send an integration task's request. */
import { dialectOf, insertReturningId, mysqlOnly, type PageInput, paginate } from '@runbook/db';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database, TaskExecutionTable } from '../db/database.js';

type Db = Kysely<Database>;

/** Records one execution attempt; returns its id. */
export const insertExecution = (db: Db, row: Insertable<TaskExecutionTable>): Promise<number> =>
  insertReturningId(db, 'task_executions', row);

/**
 * Records the outcome of execution `id` if it is still `in_flight` — not when a re-run has marked it
 * `interrupted` meanwhile (the re-run's own row carries the result).
 */
export async function finishExecution(db: Db, id: number, changes: Updateable<TaskExecutionTable>): Promise<void> {
  await db
    .updateTable('task_executions')
    .set(changes)
    .where('id', '=', id)
    .where('outcome', '=', 'in_flight')
    .execute();
}

/**
 * Marks executions of job `jobId` still `in_flight` — left by a worker that stopped mid-request —
 * as `interrupted`. Their request may or may not have reached the receiver; the re-run sends it again
 * with the same Idempotency-Key.
 */
export async function markInterrupted(db: Db, jobId: number, now: number): Promise<void> {
  await db
    .updateTable('task_executions')
    .set({
      outcome: 'interrupted',
      error_code: 'interrupted',
      error_detail:
        'The catalog stopped while this request was in flight; it was sent again with the same Idempotency-Key.',
      finished_at: now,
    })
    .where('job_id', '=', jobId)
    .where('outcome', '=', 'in_flight')
    .execute();
}

/** One page of a task's executions, oldest first. @throws {InvalidCursorError}. */
export function listExecutions(db: Db, taskId: number, page: PageInput) {
  return paginate(
    db.selectFrom('task_executions').selectAll().where('task_id', '=', taskId),
    {
      column: 'task_executions.id',
      key: 'id',
      direction: 'asc',
      idColumn: 'task_executions.id',
      idKey: 'id',
      seekIndex: mysqlOnly(dialectOf(db), 'task_executions_task'),
    },
    page,
  );
}
