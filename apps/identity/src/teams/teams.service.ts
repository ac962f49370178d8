/**
 * Teams: named groups of users (instance-wide), to be assigned to tasks. Members are existing,
 * unarchived users; a team has at most `TEAM_MEMBERS_MAX` of them.
 */
import { conflict, notFound, type Page, TEAM_MEMBERS_MAX, type TeamDto, unprocessable } from '@runbook/contracts';
import { isoOf, isUniqueViolation, type PageInput } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Database, NewTeamRow, TeamRow } from '../db/database.js';
import type { IdentityDeps } from '../deps.js';
import { findActiveUserIds } from '../users/users.repository.js';
import * as repo from './teams.repository.js';

async function withMembers(db: Kysely<Database>, rows: TeamRow[]): Promise<TeamDto[]> {
  const members = await repo.findMembers(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({
    id: String(row.id),
    name: row.name,
    description: row.description,
    member_ids: members.filter((m) => m.team_id === row.id).map((m) => String(m.user_id)),
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
  }));
}

async function findTeamOr404(db: Kysely<Database>, id: number): Promise<TeamRow> {
  const row = await repo.findTeamById(db, id);
  if (!row) throw notFound('team', String(id));
  return row;
}

/** @throws {AppError} 404 when the team does not exist. */
export async function getTeam(deps: IdentityDeps, id: number): Promise<TeamDto> {
  const [dto] = await withMembers(deps.db, [await findTeamOr404(deps.db, id)]);
  return dto as TeamDto;
}

/** Teams by id; `member_id` keeps those the user belongs to. @throws {AppError} 400 `invalid_cursor`. */
export async function listTeams(
  deps: IdentityDeps,
  filters: { member_id?: number | undefined },
  page: PageInput,
): Promise<Page<TeamDto>> {
  const result = await repo.listTeams(deps.db, filters, page);
  return { ...result, items: await withMembers(deps.db, result.items) };
}

/** The ids among `teamIds` of the teams user `userId` belongs to, ascending; unknown ids are simply not among them. */
export async function teamsOfMember(deps: IdentityDeps, userId: number, teamIds: number[]): Promise<string[]> {
  return (await repo.findTeamsOfMember(deps.db, userId, [...new Set(teamIds)])).map(String);
}

const nameTaken = (name: string) => conflict('name_taken', `A team named ${JSON.stringify(name)} already exists.`);

/**
 * Adds `userIds` to team `teamId` inside `trx`, checking that they are active users and that the team stays within its size.
 * @throws {AppError} 422 `invalid_member` (`meta.invalid_ids`) or `too_many_members`.
 */
async function addValidMembers(trx: Kysely<Database>, teamId: number, userIds: number[], pointer: string, now: number) {
  const unique = [...new Set(userIds)];
  const active = new Set(await findActiveUserIds(trx, unique));
  const invalid = unique.filter((id) => !active.has(id)).map(String);
  if (invalid.length > 0) {
    throw unprocessable(
      'invalid_member',
      `Members must be existing, unarchived users; these are not: ${invalid.join(', ')}.`,
      pointer,
      { invalid_ids: invalid },
    );
  }
  await repo.addMembers(trx, teamId, unique, now);
  if ((await repo.countMembers(trx, teamId)) > TEAM_MEMBERS_MAX) {
    throw unprocessable('too_many_members', `A team has at most ${TEAM_MEMBERS_MAX} members.`, pointer);
  }
}

/**
 * Creates a team with its first members.
 * @throws {AppError} 409 `name_taken`; 422 `invalid_member` or `too_many_members`.
 */
export async function createTeam(
  deps: IdentityDeps,
  input: { name: string; description: string; member_ids: string[] },
): Promise<TeamDto> {
  const now = deps.now();
  let id: number;
  try {
    id = await deps.db.transaction().execute(async (trx) => {
      const teamId = await repo.insertTeam(trx, {
        name: input.name,
        description: input.description,
        created_at: now,
        updated_at: now,
      });
      await addValidMembers(trx, teamId, input.member_ids.map(Number), '/data/relationships/members', now);
      return teamId;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name);
    throw error;
  }
  return getTeam(deps, id);
}

/**
 * Renames or re-describes a team (omitted fields are kept).
 * @throws {AppError} 404; 409 `name_taken`.
 */
export async function updateTeam(
  deps: IdentityDeps,
  id: number,
  input: { name?: string | undefined; description?: string | undefined },
): Promise<TeamDto> {
  await findTeamOr404(deps.db, id);
  const changes: Partial<NewTeamRow> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (Object.keys(changes).length > 0) {
    try {
      await repo.updateTeam(deps.db, id, { ...changes, updated_at: deps.now() });
    } catch (error) {
      if (isUniqueViolation(error) && input.name !== undefined) throw nameTaken(input.name);
      throw error;
    }
  }
  return getTeam(deps, id);
}

/** Deletes a team and its memberships (not the users). @throws {AppError} 404. */
export async function deleteTeam(deps: IdentityDeps, id: number): Promise<void> {
  await findTeamOr404(deps.db, id);
  await repo.deleteTeam(deps.db, id);
}

/**
 * Adds users to a team (members already in it are kept; idempotent).
 * @throws {AppError} 404 unknown team; 422 `invalid_member` or `too_many_members`.
 */
export async function addTeamMembers(deps: IdentityDeps, id: number, userIds: string[]): Promise<TeamDto> {
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    await findTeamOr404(trx, id);
    await addValidMembers(trx, id, userIds.map(Number), '/data', now);
    await repo.updateTeam(trx, id, { updated_at: now });
  });
  return getTeam(deps, id);
}

/** Removes a user from a team. @throws {AppError} 404 unknown team, or the user is not a member. */
export async function removeTeamMember(deps: IdentityDeps, id: number, userId: number): Promise<void> {
  await findTeamOr404(deps.db, id);
  if (!(await repo.removeMember(deps.db, id, userId))) {
    throw notFound('team member', String(userId));
  }
  await repo.updateTeam(deps.db, id, { updated_at: deps.now() });
}
