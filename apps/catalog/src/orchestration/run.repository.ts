/**
 * Queries of the run engine: task stage changes in batches, successor counters, runbook run state,
 * the stage-change log. Every function takes the transaction first and touches only the rows it is
 * given (by id, through indexes), so a transition costs O(its tasks + their edges), never a scan of
 * the runbook. `IN` lists are chunked to stay under both engines' parameter limits.
 */
import type { RunbookDto } from '@runbook/contracts';
import { dialectOf, mysqlOnly, type PageInput, paginate } from '@runbook/db';
import { type Kysely, sql } from 'kysely';
import type { Database, NewRunEventRow } from '../db/database.js';

type Db = Kysely<Database>;

/** Largest `IN (…)` list per statement. */
export const CHUNK = 500;

/** Splits `items` into arrays of at most `size`. */
export function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The run state of a runbook, read inside `trx` with its row locked on MySQL (SQLite serialises writers). */
export interface LockedRunbook {
  id: number;
  workspace_id: number;
  stage: RunbookDto['stage'];
  run_type: 'live' | 'rehearsal' | null;
  tasks_remaining: number;
}

/** Reads and locks runbook `id` for a run transition. */
export async function lockRunbookRun(trx: Db, id: number): Promise<LockedRunbook | undefined> {
  const query = trx
    .selectFrom('runbooks')
    .select(['id', 'workspace_id', 'stage', 'run_type', 'tasks_remaining'])
    .where('id', '=', id);
  const row = await (dialectOf(trx) === 'mysql' ? query.forUpdate() : query).executeTakeFirst();
  return row as LockedRunbook | undefined;
}

/** A runbook's stage, without locking. */
export const findRunbookStage = (db: Db, id: number): Promise<{ stage: RunbookDto['stage'] } | undefined> =>
  db.selectFrom('runbooks').select(['stage']).where('id', '=', id).executeTakeFirst();

/** Writes run fields of runbook `id` (stage, run type, remaining task count). */
export async function setRunbookRunState(
  trx: Db,
  id: number,
  changes: { stage?: LockedRunbook['stage']; run_type?: 'live' | 'rehearsal'; tasks_remaining?: number },
  now: number,
): Promise<void> {
  await trx
    .updateTable('runbooks')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/**
 * Prepares every task of a runbook for a run: back to `not_startable`, run fields cleared, and
 * `pending_predecessors` set to its number of predecessors. One statement; O(tasks + links).
 */
export async function resetTasksForRun(trx: Db, runbookId: number, now: number): Promise<void> {
  await trx
    .updateTable('tasks')
    .set({
      stage: 'not_startable',
      completion_type: null,
      start_actual: null,
      end_actual: null,
      execution_status: null,
      last_error: null,
      updated_at: now,
      pending_predecessors: (eb) =>
        eb
          .selectFrom('task_predecessors')
          .select(eb.fn.countAll<number>().as('n'))
          .whereRef('task_predecessors.task_id', '=', 'tasks.id'),
    })
    .where('runbook_id', '=', runbookId)
    .execute();
}

/** Number of tasks of runbook `runbookId`. */
export async function countTasks(trx: Db, runbookId: number): Promise<number> {
  const row = await trx
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('runbook_id', '=', runbookId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A task as the engine needs it. */
export interface EngineTask {
  id: number;
  stage: 'not_startable' | 'startable' | 'in_progress' | 'complete';
  auto_start: number;
  auto_finish: number;
  integration_id: number | null;
}

const engineColumns = ['id', 'stage', 'auto_start', 'auto_finish', 'integration_id'] as const;

/** Tasks of a runbook with no predecessors (after {@link resetTasksForRun}: pending 0). */
export function findRootTasks(trx: Db, runbookId: number): Promise<EngineTask[]> {
  return trx
    .selectFrom('tasks')
    .select(engineColumns)
    .where('runbook_id', '=', runbookId)
    .where('pending_predecessors', '=', 0)
    .orderBy('id')
    .execute();
}

/** Startable tasks of a runbook that start by themselves (index `tasks_runbook_stage`). */
export function findStartableAutoTasks(trx: Db, runbookId: number): Promise<EngineTask[]> {
  return trx
    .selectFrom('tasks')
    .select(engineColumns)
    .where('runbook_id', '=', runbookId)
    .where('stage', '=', 'startable')
    .where('auto_start', '=', 1)
    .orderBy('id')
    .execute();
}

/** The tasks `ids` of runbook `runbookId` (engine columns), in id order. */
export async function findEngineTasks(trx: Db, runbookId: number, ids: readonly number[]): Promise<EngineTask[]> {
  const out: EngineTask[] = [];
  for (const part of chunks(ids)) {
    out.push(
      ...(await trx
        .selectFrom('tasks')
        .select(engineColumns)
        .where('runbook_id', '=', runbookId)
        .where('id', 'in', part)
        .execute()),
    );
  }
  return out.sort((a, b) => a.id - b.id);
}

/** Sets `stage` (and the given run fields) on tasks `ids`. */
export async function setTaskStage(
  trx: Db,
  ids: readonly number[],
  changes: {
    stage: EngineTask['stage'];
    completion_type?: 'complete_normal' | 'complete_skipped' | 'complete_abandoned' | 'complete_auto' | null;
    start_actual?: number;
    end_actual?: number;
    execution_status?: 'queued' | 'retrying' | 'failed' | 'succeeded' | null;
    last_error?: string | null;
  },
  now: number,
): Promise<void> {
  for (const part of chunks(ids)) {
    await trx
      .updateTable('tasks')
      .set({ ...changes, updated_at: now })
      .where('id', 'in', part)
      .execute();
  }
}

/** Sets an integration task's execution status and last error. */
export async function setExecutionState(
  trx: Db,
  taskId: number,
  status: 'queued' | 'retrying' | 'failed' | 'succeeded',
  lastError: string | null,
  now: number,
): Promise<void> {
  await trx
    .updateTable('tasks')
    .set({ execution_status: status, last_error: lastError, updated_at: now })
    .where('id', '=', taskId)
    .execute();
}

/**
 * Counts completed predecessors down on the successors of `completedIds` and returns the successors
 * that became ready (stage `not_startable`, nothing pending). Three statements per chunk of
 * successors whatever the batch size: read links, decrement (grouped by amount), read the ready ones.
 */
export async function releaseSuccessors(trx: Db, completedIds: readonly number[]): Promise<EngineTask[]> {
  const decrements = new Map<number, number>();
  for (const part of chunks(completedIds)) {
    const links = await trx
      .selectFrom('task_predecessors')
      .select(['task_id'])
      .where('predecessor_id', 'in', part)
      .execute();
    for (const { task_id } of links) decrements.set(task_id, (decrements.get(task_id) ?? 0) + 1);
  }
  if (decrements.size === 0) return [];
  const byAmount = new Map<number, number[]>();
  for (const [taskId, n] of decrements) {
    const list = byAmount.get(n);
    if (list) list.push(taskId);
    else byAmount.set(n, [taskId]);
  }
  for (const [n, ids] of byAmount) {
    for (const part of chunks(ids)) {
      await trx
        .updateTable('tasks')
        .set({ pending_predecessors: sql`pending_predecessors - ${n}` })
        .where('id', 'in', part)
        .execute();
    }
  }
  const ready: EngineTask[] = [];
  for (const part of chunks([...decrements.keys()])) {
    ready.push(
      ...(await trx
        .selectFrom('tasks')
        .select(engineColumns)
        .where('id', 'in', part)
        .where('stage', '=', 'not_startable')
        .where('pending_predecessors', '<=', 0)
        .execute()),
    );
  }
  return ready.sort((a, b) => a.id - b.id);
}

/** A task as task actions need it: engine columns, assignees (JSON) and execution status. */
export interface ActionTask extends EngineTask {
  assignees: string | null;
  execution_status: string | null;
}

/** Task `taskId` of runbook `runbookId` for a task action. */
export function findActionTask(trx: Db, runbookId: number, taskId: number): Promise<ActionTask | undefined> {
  return trx
    .selectFrom('tasks')
    .select([...engineColumns, 'assignees', 'execution_status'])
    .where('id', '=', taskId)
    .where('runbook_id', '=', runbookId)
    .executeTakeFirst();
}

/** Ids of the predecessors of `taskId` that are not complete (for error messages). */
export async function incompletePredecessors(trx: Db, taskId: number): Promise<number[]> {
  const rows = await trx
    .selectFrom('task_predecessors as tp')
    .innerJoin('tasks as p', 'p.id', 'tp.predecessor_id')
    .select('p.id')
    .where('tp.task_id', '=', taskId)
    .where('p.stage', '!=', 'complete')
    .orderBy('p.id')
    .execute();
  return rows.map((r) => r.id);
}

/** Appends events to the stage-change log (batched). */
export async function insertEvents(trx: Db, events: readonly NewRunEventRow[]): Promise<void> {
  for (const part of chunks(events, 200)) await trx.insertInto('run_events').values(part).execute();
}

/** One page of a runbook's events (optionally one task's), oldest first. @throws {InvalidCursorError}. */
export function listEvents(db: Db, runbookId: number, taskId: number | undefined, page: PageInput) {
  let query = db.selectFrom('run_events').selectAll().where('runbook_id', '=', runbookId);
  if (taskId !== undefined) query = query.where('task_id', '=', taskId);
  return paginate(
    query,
    {
      column: 'run_events.id',
      key: 'id',
      direction: 'asc',
      idColumn: 'run_events.id',
      idKey: 'id',
      seekIndex: mysqlOnly(dialectOf(db), taskId === undefined ? 'run_events_runbook' : 'run_events_task'),
    },
    page,
  );
}
