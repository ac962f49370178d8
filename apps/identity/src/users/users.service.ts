/** Users and role assignments: rules, DTO mapping. */
import {
  conflict,
  forbidden,
  hasRole,
  notFound,
  type Page,
  type Principal,
  type RoleAssignment,
  type UserDto,
} from '@runbook/contracts';
import { isoOf, isUniqueViolation, type PageInput } from '@runbook/db';
import { forgetAuthentications } from '../auth/authenticate.js';
import type { UserRow } from '../db/database.js';
import type { IdentityDeps } from '../deps.js';
import { listUserAppTokens } from '../tokens/tokens.repository.js';
import * as repo from './users.repository.js';

function toUserDto(row: UserRow, roles: Array<{ role: string; workspace_id: number | string }>): UserDto {
  return {
    id: String(row.id),
    first_name: row.first_name,
    last_name: row.last_name,
    name: `${row.first_name} ${row.last_name}`.trim(),
    email: row.email,
    archived: Boolean(row.archived),
    roles: roles.map((r) => ({
      role: r.role as RoleAssignment['role'],
      workspace_id: Number(r.workspace_id) === 0 ? null : String(r.workspace_id),
    })),
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
  };
}

async function withRoles(deps: IdentityDeps, rows: UserRow[]): Promise<UserDto[]> {
  const roles = await repo.findRoleAssignments(
    deps.db,
    rows.map((r) => r.id),
  );
  return rows.map((row) =>
    toUserDto(
      row,
      roles.filter((r) => r.user_id === row.id),
    ),
  );
}

/** @throws {AppError} 404 when the user does not exist. */
export async function getUser(deps: IdentityDeps, id: number): Promise<UserDto> {
  const row = await repo.findUserById(deps.db, id);
  if (!row) throw notFound('user', String(id));
  const [dto] = await withRoles(deps, [row]);
  return dto as UserDto;
}

export async function listUsers(
  deps: IdentityDeps,
  filters: { query?: string | undefined; archived?: boolean | undefined },
  page: PageInput,
): Promise<Page<UserDto>> {
  const result = await repo.listUsers(deps.db, filters, page);
  return { ...result, items: await withRoles(deps, result.items) };
}

export interface CreateUserInput {
  first_name: string;
  last_name: string;
  email: string;
  roles: RoleAssignment[];
}

/** @throws {AppError} 409 `email_taken` when the email is already used. */
export async function createUser(deps: IdentityDeps, input: CreateUserInput): Promise<UserDto> {
  const now = deps.now();
  const email = input.email.toLowerCase();
  let id: number;
  try {
    id = await deps.db.transaction().execute(async (trx) => {
      const userId = await repo.insertUser(trx, {
        email,
        first_name: input.first_name,
        last_name: input.last_name,
        archived: 0,
        created_at: now,
        updated_at: now,
      });
      await repo.replaceRoleAssignments(trx, userId, input.roles.map(toRoleRow), now);
      return userId;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('email_taken', `A user with email ${email} already exists.`);
    throw error;
  }
  return getUser(deps, id);
}

const toRoleRow = (r: RoleAssignment) => ({
  role: r.role,
  workspace_id: r.workspace_id === null ? 0 : Number(r.workspace_id),
});

/** Replaces a user's role assignments; cached authentications of the user are dropped at once. */
export async function setRoles(deps: IdentityDeps, userId: number, roles: RoleAssignment[]): Promise<UserDto> {
  await getUser(deps, userId);
  const unique = [...new Map(roles.map((r) => [`${r.role}:${r.workspace_id}`, r])).values()];
  await deps.db
    .transaction()
    .execute((trx) => repo.replaceRoleAssignments(trx, userId, unique.map(toRoleRow), deps.now()));
  await forgetUser(deps, userId);
  return getUser(deps, userId);
}

async function forgetUser(deps: IdentityDeps, userId: number): Promise<void> {
  const tokens = await listUserAppTokens(deps.db, userId);
  await forgetAuthentications(
    deps,
    tokens.map((t) => t.token_hash),
  );
}

/** Archives a user: every token of theirs stops working at once. */
export async function archiveUser(deps: IdentityDeps, userId: number): Promise<void> {
  await getUser(deps, userId);
  await repo.updateUser(deps.db, userId, { archived: 1, updated_at: deps.now() });
  await forgetUser(deps, userId);
}

/**
 * Users may act on themselves; `global_user_admin` may act on anyone.
 * @throws {AppError} 403 otherwise.
 */
export function assertSelfOrUserAdmin(principal: Principal, userId: number): void {
  if (principal.kind === 'service') return;
  if (principal.user_id === String(userId) || hasRole(principal, 'global_user_admin')) return;
  throw forbidden('Only the user themselves or a global_user_admin may do this.');
}
