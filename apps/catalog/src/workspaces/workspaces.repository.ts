/** The only code that touches the workspaces table. */
import { insertReturningId, type KeysetSort, type PageInput, paginate } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Database, NewWorkspaceRow, WorkspaceRow } from '../db/database.js';

type Db = Kysely<Database>;

export const findWorkspaceById = (db: Db, id: number): Promise<WorkspaceRow | undefined> =>
  db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();

export const insertWorkspace = (db: Db, row: NewWorkspaceRow): Promise<number> =>
  insertReturningId(db, 'workspaces', row);

const byId: KeysetSort = {
  column: 'workspaces.id',
  key: 'id',
  direction: 'asc',
  idColumn: 'workspaces.id',
  idKey: 'id',
};

/**
 * Workspaces by id, one page; only those in `ids` when given.
 * @throws {InvalidCursorError} for a foreign `page.after`.
 */
export const listWorkspaces = (db: Db, page: PageInput, ids?: number[]) =>
  paginate(
    ids
      ? db
          .selectFrom('workspaces')
          .selectAll()
          .where('id', 'in', [0, ...ids])
      : db.selectFrom('workspaces').selectAll(),
    byId,
    page,
  );
