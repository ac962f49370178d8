/** The only code that touches the tasks and task_predecessors tables. */
import type { TaskDto } from '@runbook/contracts';
import { insertReturningId, type KeysetSort, type PageInput, paginate } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Database, NewTaskRow, TaskRow, TaskUpdate } from '../db/database.js';
import type { PredecessorLink } from './task-graph.js';

type Db = Kysely<Database>;

export const findTask = (db: Db, runbookId: number, id: number): Promise<TaskRow | undefined> =>
  db.selectFrom('tasks').selectAll().where('id', '=', id).where('runbook_id', '=', runbookId).executeTakeFirst();

const byId: KeysetSort = { column: 'tasks.id', key: 'id', direction: 'asc', idColumn: 'tasks.id', idKey: 'id' };

/** One page of a runbook's tasks by id. @throws {InvalidCursorError} for a foreign `page.after`. */
export function listTasks(
  db: Db,
  runbookId: number,
  filters: { stage?: TaskDto['stage'] | undefined },
  page: PageInput,
) {
  let query = db.selectFrom('tasks').selectAll().where('runbook_id', '=', runbookId);
  if (filters.stage !== undefined) query = query.where('stage', '=', filters.stage);
  return paginate(query, byId, page);
}

/** Predecessor links of the tasks `taskIds`, in one query, by task then predecessor. */
export function findPredecessorLinks(db: Db, taskIds: number[]): Promise<PredecessorLink[]> {
  if (taskIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('task_predecessors')
    .select(['task_id', 'predecessor_id'])
    .where('task_id', 'in', taskIds)
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
