/**
 * The jobs table (outbox). A job is written in the same transaction as the stage change that needs
 * it; workers claim due jobs under a lease and finish them with a fenced update (`lease_token`), so a
 * worker whose lease ran out can never record a result over the worker that re-ran the job.
 *
 * Claiming: on MySQL `SELECT … FOR UPDATE SKIP LOCKED` (READ COMMITTED, so no gap locks) then an
 * UPDATE, in one transaction — concurrent replicas claim disjoint jobs without waiting on each
 * other. On SQLite a single `UPDATE … WHERE id IN (SELECT … LIMIT n) RETURNING *` is atomic (one
 * writer at a time), with the same conditions.
 */
import { randomUUID } from 'node:crypto';
import { dialectOf } from '@runbook/db';
import { type Kysely, sql } from 'kysely';
import type { Database, JobRow, JobState } from '../db/database.js';
import { chunks } from './run.repository.js';

type Db = Kysely<Database>;

/** Job kinds. `execute_integration`: send an integration task's request. `advance`: continue auto starts. */
export type JobKind = 'execute_integration' | 'advance';

/** A job to add. */
export interface NewJob {
  kind: JobKind;
  runbook_id: number;
  task_id: number | null;
  payload: Record<string, unknown>;
  /** Not before (epoch ms); default now. */
  available_at?: number;
}

/** Adds jobs (batched) in state `queued`, each with a fresh Idempotency-Key kept by every attempt of the job. */
export async function enqueueJobs(trx: Db, jobs: readonly NewJob[], now: number): Promise<void> {
  for (const part of chunks(jobs, 200)) {
    await trx
      .insertInto('jobs')
      .values(
        part.map((j) => ({
          kind: j.kind,
          runbook_id: j.runbook_id,
          task_id: j.task_id,
          payload: JSON.stringify(j.payload),
          state: 'queued' as const,
          available_at: j.available_at ?? now,
          attempts: 0,
          idempotency_key: `rbk_${randomUUID()}`,
          claimed_by: null,
          lease_token: null,
          last_error: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
  }
}

/**
 * Claims up to `limit` due jobs (`queued`, `available_at <= now`: new, retry due, or lease expired)
 * for `workerId`: sets a new `lease_token`, `available_at = now + leaseMs` and counts the attempt.
 * @returns the claimed jobs as they are now (oldest due first).
 */
export async function claimJobs(
  db: Db,
  workerId: string,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<JobRow[]> {
  const token = randomUUID();
  const claim = {
    state: 'queued' as const,
    available_at: now + leaseMs,
    claimed_by: workerId,
    lease_token: token,
    attempts: sql<number>`attempts + 1`,
    updated_at: now,
  };
  if (dialectOf(db) === 'mysql') {
    return db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (trx) => {
        const due = await trx
          .selectFrom('jobs')
          .select('id')
          .where('state', '=', 'queued')
          .where('available_at', '<=', now)
          .orderBy('available_at')
          .orderBy('id')
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .execute();
        if (due.length === 0) return [];
        const ids = due.map((r) => r.id);
        await trx.updateTable('jobs').set(claim).where('id', 'in', ids).execute();
        return trx.selectFrom('jobs').selectAll().where('id', 'in', ids).orderBy('id').execute();
      });
  }
  const rows = await db
    .updateTable('jobs')
    .set(claim)
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where('state', '=', 'queued')
        .where('available_at', '<=', now)
        .orderBy('available_at')
        .orderBy('id')
        .limit(limit),
    )
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.id - b.id);
}

/**
 * Updates a claimed job only while the claim still holds (same `lease_token`, state `queued`).
 * @returns `true` when the update applied; `false` when the job was canceled or re-claimed meanwhile.
 */
export async function settleJob(
  trx: Db,
  job: Pick<JobRow, 'id' | 'lease_token'>,
  changes: { state: JobState; available_at?: number; last_error?: string | null; attempts?: number },
  now: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('jobs')
    .set({
      ...changes,
      ...(changes.state === 'queued' ? { lease_token: null, claimed_by: null } : {}),
      updated_at: now,
    })
    .where('id', '=', job.id)
    .where('lease_token', '=', job.lease_token ?? '')
    .where('state', '=', 'queued')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** `true` while the claim on `job` still holds (checked right before sending a request). */
export async function claimHolds(db: Db, job: Pick<JobRow, 'id' | 'lease_token'>, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select(['state', 'lease_token', 'available_at'])
    .where('id', '=', job.id)
    .executeTakeFirst();
  return !!row && row.state === 'queued' && row.lease_token === job.lease_token && Number(row.available_at) > now;
}

/** Cancels the waiting (queued or parked) jobs of task `taskId`; a claimed one then fails its fenced update. */
export async function cancelTaskJobs(trx: Db, taskId: number, now: number): Promise<void> {
  await trx
    .updateTable('jobs')
    .set({ state: 'canceled', updated_at: now })
    .where('task_id', '=', taskId)
    .where('state', 'in', ['queued', 'parked'])
    .execute();
}

/** Cancels every waiting job of a runbook (run canceled). */
export async function cancelRunbookJobs(trx: Db, runbookId: number, now: number): Promise<void> {
  await trx
    .updateTable('jobs')
    .set({ state: 'canceled', updated_at: now })
    .where('runbook_id', '=', runbookId)
    .where('state', 'in', ['queued', 'parked'])
    .execute();
}

/** Makes the parked jobs of a resumed runbook due now. @returns how many. */
export async function unparkRunbookJobs(trx: Db, runbookId: number, now: number): Promise<number> {
  const result = await trx
    .updateTable('jobs')
    .set({ state: 'queued', available_at: now, lease_token: null, claimed_by: null, updated_at: now })
    .where('runbook_id', '=', runbookId)
    .where('state', '=', 'parked')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Deletes up to `limit` finished jobs (`done`, `failed`, `canceled`) last changed before `before`
 * (epoch ms), found through the `(state, updated_at)` index. Waiting jobs (`queued`, `parked`) are
 * never deleted, and executions and run events are separate tables: they stay. Several replicas
 * may run this at once (they delete by primary key).
 * @returns `found`: the expired jobs selected (fewer than `limit`: none left); `deleted`: those this
 *   call deleted (another replica may have taken some).
 */
export async function deleteFinishedJobs(
  db: Db,
  before: number,
  limit: number,
): Promise<{ found: number; deleted: number }> {
  // Two statements: MySQL/MariaDB support no LIMIT in an IN subquery.
  const ids = (
    await db
      .selectFrom('jobs')
      .select('id')
      .where('state', 'in', ['done', 'failed', 'canceled'])
      .where('updated_at', '<', before)
      .limit(limit)
      .execute()
  ).map((r) => r.id);
  if (ids.length === 0) return { found: 0, deleted: 0 };
  const result = await db
    .deleteFrom('jobs')
    .where('id', 'in', ids)
    .where('state', 'in', ['done', 'failed', 'canceled'])
    .executeTakeFirst();
  return { found: ids.length, deleted: Number(result.numDeletedRows) };
}
