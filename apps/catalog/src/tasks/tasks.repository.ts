/** The only code that touches the tasks and task_predecessors tables. */
import type { TaskDto } from '@runbook/contracts';
import { dialectOf, insertReturningId, type KeysetSort, mysqlOnly, type PageInput, paginate } from '@runbook/db';
import { type Kysely, sql } from 'kysely';
import type { Database, NewTaskRow, TaskRow, TaskUpdate } from '../db/database.js';
import type { PredecessorLink } from './task-graph.js';

type Db = Kysely<Database>;

export const findTask = (db: Db, runbookId: number, id: number): Promise<TaskRow | undefined> =>
  db.selectFrom('tasks').selectAll().where('id', '=', id).where('runbook_id', '=', runbookId).executeTakeFirst();

/** Filters of a runbook's task list. */
export interface TaskFilters {
  stage?: TaskDto['stage'] | undefined;
  completion_type?: NonNullable<TaskDto['completion_type']> | undefined;
  /** Case-insensitive substring of the name. */
  search_term?: string | undefined;
}

/** Columns a task list may be sorted by; the id breaks ties. */
export type TaskSortField = 'id' | 'name' | 'created_at';

/**
 * One page of a runbook's tasks matching `filters`, keyset-paged on `(field, id)`.
 * @throws {InvalidCursorError} for a foreign `page.after`.
 */
export function listTasks(
  db: Db,
  runbookId: number,
  filters: TaskFilters,
  sort: { field: TaskSortField; direction: 'asc' | 'desc' },
  page: PageInput,
) {
  let query = db.selectFrom('tasks').selectAll().where('runbook_id', '=', runbookId);
  if (filters.stage !== undefined) query = query.where('stage', '=', filters.stage);
  if (filters.completion_type !== undefined) query = query.where('completion_type', '=', filters.completion_type);
  if (filters.search_term) {
    // `!` escapes LIKE wildcards on both engines (a backslash would need dialect-specific quoting).
    const pattern = `%${filters.search_term.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
    query = query.where(sql<boolean>`lower(name) like ${pattern} escape '!'`);
  }
  // Cursor pages seek (runbook_id[, stage], sort column, id) — see KeysetSort.seekIndex.
  const seekIndex = {
    id: filters.stage === undefined ? 'tasks_runbook_id' : 'tasks_runbook_stage',
    name: 'tasks_runbook_name',
    created_at: 'tasks_runbook_created',
  }[sort.field];
  const sortSpec: KeysetSort = {
    column: `tasks.${sort.field}`,
    key: sort.field,
    direction: sort.direction,
    idColumn: 'tasks.id',
    idKey: 'id',
    seekIndex: seekIndex && mysqlOnly(dialectOf(db), seekIndex),
  };
  return paginate(query, sortSpec, page);
}

/** Predecessor links touching the tasks `taskIds` (as waiter or as predecessor), in one query. */
export function findTaskLinks(db: Db, taskIds: number[]): Promise<PredecessorLink[]> {
  if (taskIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('task_predecessors')
    .select(['task_id', 'predecessor_id'])
    .where((eb) => eb.or([eb('task_id', 'in', taskIds), eb('predecessor_id', 'in', taskIds)]))
    .orderBy('task_id')
    .orderBy('predecessor_id')
    .execute();
}

/** Every predecessor link among a runbook's tasks. */
export const findRunbookLinks = (db: Db, runbookId: number): Promise<PredecessorLink[]> =>
  db
    .selectFrom('task_predecessors as tp')
    .innerJoin('tasks as t', 't.id', 'tp.task_id')
    .select(['tp.task_id', 'tp.predecessor_id'])
    .where('t.runbook_id', '=', runbookId)
    .execute();

/** Those of `ids` that are tasks of runbook `runbookId`. */
export async function findTaskIdsInRunbook(db: Db, runbookId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('tasks')
    .select('id')
    .where('runbook_id', '=', runbookId)
    .where('id', 'in', ids)
    .execute();
  return rows.map((r) => r.id);
}

export const insertTask = (db: Db, row: NewTaskRow): Promise<number> => insertReturningId(db, 'tasks', row);

export async function updateTask(db: Db, id: number, changes: TaskUpdate): Promise<void> {
  await db.updateTable('tasks').set(changes).where('id', '=', id).execute();
}

/** Deletes a task; links to and from it go with it (ON DELETE CASCADE). */
export async function deleteTask(db: Db, id: number): Promise<void> {
  await db.deleteFrom('tasks').where('id', '=', id).execute();
}

/** Replaces a task's predecessors; call inside a transaction (`trx`). */
export async function replacePredecessors(trx: Db, taskId: number, predecessorIds: number[]): Promise<void> {
  await trx.deleteFrom('task_predecessors').where('task_id', '=', taskId).execute();
  if (predecessorIds.length > 0) {
    await trx
      .insertInto('task_predecessors')
      .values(predecessorIds.map((predecessor_id) => ({ task_id: taskId, predecessor_id })))
      .execute();
  }
}
