/** The only code that touches the integrations table. */
import { insertReturningId, type KeysetSort, type PageInput, paginate } from '@runbook/db';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database, IntegrationRow, IntegrationTable } from '../db/database.js';

type Db = Kysely<Database>;

/** Integration `id`, or undefined. */
export const findIntegration = (db: Db, id: number): Promise<IntegrationRow | undefined> =>
  db.selectFrom('integrations').selectAll().where('id', '=', id).executeTakeFirst();

const byId: KeysetSort = {
  column: 'integrations.id',
  key: 'id',
  direction: 'asc',
  idColumn: 'integrations.id',
  idKey: 'id',
};

/** Integrations by id, one page. @throws {InvalidCursorError} for a foreign `page.after`. */
export const listIntegrations = (db: Db, page: PageInput) =>
  paginate(db.selectFrom('integrations').selectAll(), byId, page);

/** Inserts an integration; returns its id. */
export const insertIntegration = (db: Db, row: Insertable<IntegrationTable>): Promise<number> =>
  insertReturningId(db, 'integrations', row);

/** Writes `changes` to integration `id`. */
export async function updateIntegration(db: Db, id: number, changes: Updateable<IntegrationTable>): Promise<void> {
  await db.updateTable('integrations').set(changes).where('id', '=', id).execute();
}

/** Deletes an integration; its where-used rows go with it (ON DELETE CASCADE). */
export async function deleteIntegration(db: Db, id: number): Promise<void> {
  await db.deleteFrom('integrations').where('id', '=', id).execute();
}

/** Ids of (at most `limit`) tasks that run integration `id`. */
export async function findTaskIdsUsing(db: Db, id: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('tasks')
    .select('id')
    .where('integration_id', '=', id)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** `true` when integration `id` exists. */
export async function integrationExists(db: Db, id: number): Promise<boolean> {
  return !!(await db.selectFrom('integrations').select('id').where('id', '=', id).executeTakeFirst());
}
