/** The only code that touches the teams and team_members tables. */
import { insertReturningId, type KeysetSort, type PageInput, paginate } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Database, NewTeamRow, TeamRow } from '../db/database.js';

type Db = Kysely<Database>;

/** The team with id `id`, or undefined. */
export const findTeamById = (db: Db, id: number): Promise<TeamRow | undefined> =>
  db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();

/** Inserts a team; resolves its id. Throws a unique violation for a taken name. */
export const insertTeam = (db: Db, row: NewTeamRow): Promise<number> => insertReturningId(db, 'teams', row);

/** Changes the given columns of team `id`. Throws a unique violation for a taken name. */
export async function updateTeam(db: Db, id: number, changes: Partial<NewTeamRow>): Promise<void> {
  await db.updateTable('teams').set(changes).where('id', '=', id).execute();
}

/** Deletes a team; its memberships go with it (ON DELETE CASCADE). */
export async function deleteTeam(db: Db, id: number): Promise<void> {
  await db.deleteFrom('teams').where('id', '=', id).execute();
}

const byId: KeysetSort = { column: 'teams.id', key: 'id', direction: 'asc', idColumn: 'teams.id', idKey: 'id' };

/** Teams by id, optionally only those `memberId` belongs to. @throws {InvalidCursorError} for a foreign cursor. */
export function listTeams(db: Db, filters: { member_id?: number | undefined }, page: PageInput) {
  let q = db.selectFrom('teams').selectAll();
  const memberId = filters.member_id;
  if (memberId !== undefined) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('team_members as m')
          .select('m.user_id')
          .whereRef('m.team_id', '=', 'teams.id')
          .where('m.user_id', '=', memberId),
      ),
    );
  }
  return paginate(q, byId, page);
}

/** Memberships of several teams in one query, by user id. */
export function findMembers(db: Db, teamIds: number[]): Promise<Array<{ team_id: number; user_id: number }>> {
  if (teamIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('team_members')
    .select(['team_id', 'user_id'])
    .where('team_id', 'in', teamIds)
    .orderBy('user_id')
    .execute();
}

/** The ids among `teamIds` of the teams user `userId` belongs to, ascending (one query on the primary key). */
export async function findTeamsOfMember(db: Db, userId: number, teamIds: number[]): Promise<number[]> {
  if (teamIds.length === 0) return [];
  const rows = await db
    .selectFrom('team_members')
    .select('team_id')
    .where('user_id', '=', userId)
    .where('team_id', 'in', teamIds)
    .orderBy('team_id')
    .execute();
  return rows.map((r) => r.team_id);
}

/** How many members team `teamId` has. */
export async function countMembers(db: Db, teamId: number): Promise<number> {
  const row = await db
    .selectFrom('team_members')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Adds the users to the team, skipping those already in it. */
export async function addMembers(db: Db, teamId: number, userIds: number[], now: number): Promise<void> {
  if (userIds.length === 0) return;
  const existing = new Set(
    (
      await db
        .selectFrom('team_members')
        .select('user_id')
        .where('team_id', '=', teamId)
        .where('user_id', 'in', userIds)
        .execute()
    ).map((r) => r.user_id),
  );
  const fresh = userIds.filter((id) => !existing.has(id));
  if (fresh.length === 0) return;
  await db
    .insertInto('team_members')
    .values(fresh.map((user_id) => ({ team_id: teamId, user_id, created_at: now })))
    .execute();
}

/** Removes one member; resolves `false` when the user was not a member. */
export async function removeMember(db: Db, teamId: number, userId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('team_members')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
