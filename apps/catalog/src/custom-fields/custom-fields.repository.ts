/** The only code that touches the custom_fields table. */
import { insertReturningId, type KeysetSort, type PageInput, paginate } from '@runbook/db';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { CustomFieldRow, CustomFieldTable, Database } from '../db/database.js';

type Db = Kysely<Database>;

/** Definition `id`, or undefined. */
export const findCustomField = (db: Db, id: number): Promise<CustomFieldRow | undefined> =>
  db.selectFrom('custom_fields').selectAll().where('id', '=', id).executeTakeFirst();

/** The definitions among `ids` (one query). */
export function findCustomFields(db: Db, ids: number[]): Promise<CustomFieldRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('custom_fields').selectAll().where('id', 'in', ids).execute();
}

const byId: KeysetSort = {
  column: 'custom_fields.id',
  key: 'id',
  direction: 'asc',
  idColumn: 'custom_fields.id',
  idKey: 'id',
};

/** Definitions by id, one page. @throws {InvalidCursorError}. */
export const listCustomFields = (db: Db, page: PageInput) =>
  paginate(db.selectFrom('custom_fields').selectAll(), byId, page);

/** Inserts a definition; returns its id. */
export const insertCustomField = (db: Db, row: Insertable<CustomFieldTable>): Promise<number> =>
  insertReturningId(db, 'custom_fields', row);

/** Writes `changes` to definition `id`. */
export async function updateCustomField(db: Db, id: number, changes: Updateable<CustomFieldTable>): Promise<void> {
  await db.updateTable('custom_fields').set(changes).where('id', '=', id).execute();
}
