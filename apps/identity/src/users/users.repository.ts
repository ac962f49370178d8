/** The only code that touches the users and role_assignments tables. */
import { insertReturningId, type KeysetSort, type PageInput, paginate, sql } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Database, NewUserRow, UserRow } from '../db/database.js';

type Db = Kysely<Database>;

export const findUserById = (db: Db, id: number): Promise<UserRow | undefined> =>
  db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

export const findUserByEmail = (db: Db, email: string): Promise<UserRow | undefined> =>
  db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

export const insertUser = (db: Db, row: NewUserRow): Promise<number> => insertReturningId(db, 'users', row);

export async function updateUser(db: Db, id: number, changes: Partial<NewUserRow>): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}

/** Users matching `query` (substring of name or email), by id. @throws {InvalidCursorError} for a foreign cursor. */
export function listUsers(
  db: Db,
  filters: { query?: string | undefined; archived?: boolean | undefined },
  page: PageInput,
) {
  let q = db.selectFrom('users').selectAll();
  if (filters.query) {
    // `!` as the LIKE escape character behaves the same on MySQL and SQLite (a backslash does not).
    const like = `%${filters.query.replace(/[!%_]/g, (c) => `!${c}`)}%`;
    q = q.where((eb) =>
      eb.or([
        sql<boolean>`email like ${like} escape '!'`,
        sql<boolean>`first_name like ${like} escape '!'`,
        sql<boolean>`last_name like ${like} escape '!'`,
      ]),
    );
  }
  if (filters.archived !== undefined) q = q.where('archived', '=', filters.archived ? 1 : 0);
  const sort: KeysetSort = { column: 'users.id', key: 'id', direction: 'asc', idColumn: 'users.id', idKey: 'id' };
  return paginate(q, sort, page);
}

/** Role rows of several users in one query. */
export function findRoleAssignments(db: Db, userIds: number[]) {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('role_assignments')
    .select(['user_id', 'role', 'workspace_id'])
    .where('user_id', 'in', userIds)
    .orderBy('id')
    .execute();
}

/** Replaces a user's role assignments; call inside a transaction (`trx`). */
export async function replaceRoleAssignments(
  trx: Db,
  userId: number,
  roles: Array<{ role: string; workspace_id: number }>,
  now: number,
): Promise<void> {
  await trx.deleteFrom('role_assignments').where('user_id', '=', userId).execute();
  if (roles.length > 0) {
    await trx
      .insertInto('role_assignments')
      .values(roles.map((r) => ({ user_id: userId, role: r.role, workspace_id: r.workspace_id, created_at: now })))
      .execute();
  }
}

/** Users among `ids` that exist and are not archived. */
export async function findActiveUserIds(db: Db, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('users').select('id').where('id', 'in', ids).where('archived', '=', 0).execute();
  return rows.map((r) => r.id);
}

/** Unarchived users other than `exceptUserId` holding `global_user_admin` globally. */
export async function countOtherActiveUserAdmins(db: Db, exceptUserId: number): Promise<number> {
  const row = await db
    .selectFrom('role_assignments as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('r.role', '=', 'global_user_admin')
    .where('r.workspace_id', '=', 0)
    .where('u.archived', '=', 0)
    .where('u.id', '!=', exceptUserId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
