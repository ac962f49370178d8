/**
 * Users and role assignments: rules, DTO mapping, audit. Role and archive changes drop the user's
 * cached authentications at once; every change is recorded in the audit trail in its transaction.
 */
import {
  conflict,
  notFound,
  type Page,
  type RoleAssignment,
  scopableRoles,
  type UserDto,
  type UserUpdateInput,
  unprocessable,
} from '@runbook/contracts';
import { isoOf, isUniqueViolation, type PageInput } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Actor } from '../access.js';
import { recordAction } from '../action-logs/action-logs.service.js';
import { forgetAuthentications } from '../auth/authenticate.js';
import type { Database, NewUserRow, UserRow } from '../db/database.js';
import type { IdentityDeps } from '../deps.js';
import { listUserAppTokens } from '../tokens/tokens.repository.js';
import * as repo from './users.repository.js';

type RoleRow = { role: string; workspace_id: number | string };

const toRoleAssignment = (r: RoleRow): RoleAssignment => ({
  role: r.role as RoleAssignment['role'],
  workspace_id: Number(r.workspace_id) === 0 ? null : String(r.workspace_id),
});

function toUserDto(row: UserRow, roles: RoleRow[]): UserDto {
  return {
    id: String(row.id),
    first_name: row.first_name,
    last_name: row.last_name,
    name: `${row.first_name} ${row.last_name}`.trim(),
    email: row.email,
    archived: Boolean(row.archived),
    roles: roles.map(toRoleAssignment),
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

/** Users by id, filtered by `query` (substring of names or email) and `archived`. @throws {AppError} 400 `invalid_cursor`. */
export async function listUsers(
  deps: IdentityDeps,
  filters: { query?: string | undefined; archived?: boolean | undefined },
  page: PageInput,
): Promise<Page<UserDto>> {
  const result = await repo.listUsers(deps.db, filters, page);
  return { ...result, items: await withRoles(deps, result.items) };
}

/**
 * Checks role assignments and drops duplicates: only {@link scopableRoles} may name a workspace.
 * @param pointer JSON pointer of the roles array in the request, for the error's `source`.
 * @throws {AppError} 422 `role_not_scopable`.
 */
function normalizeRoles(roles: RoleAssignment[], pointer: string): RoleAssignment[] {
  roles.forEach((r, i) => {
    if (r.workspace_id !== null && !scopableRoles.includes(r.role)) {
      throw unprocessable(
        'role_not_scopable',
        `The ${r.role} role is global only; send workspace_id null (roles that may name a workspace: ${scopableRoles.join(', ')}).`,
        `${pointer}/${i}/workspace_id`,
      );
    }
  });
  return [...new Map(roles.map((r) => [`${r.role}:${r.workspace_id}`, r])).values()];
}

const toRoleRow = (r: RoleAssignment) => ({
  role: r.role,
  workspace_id: r.workspace_id === null ? 0 : Number(r.workspace_id),
});

const emailTaken = (email: string) => conflict('email_taken', `A user with email ${email} already exists.`);

/** Fields of a new user; `roles` may be empty. */
export interface CreateUserInput {
  first_name: string;
  last_name: string;
  email: string;
  roles: RoleAssignment[];
}

/**
 * Creates a user (email stored lower-case) with its role assignments; audited as `user_created`.
 * @throws {AppError} 409 `email_taken`; 422 `role_not_scopable`.
 */
export async function createUser(deps: IdentityDeps, actor: Actor, input: CreateUserInput): Promise<UserDto> {
  const now = deps.now();
  const email = input.email.toLowerCase();
  const roles = normalizeRoles(input.roles, '/data/attributes/roles');
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
      await repo.replaceRoleAssignments(trx, userId, roles.map(toRoleRow), now);
      await recordAction(
        trx,
        { event: 'user_created', actor, user_id: userId, subject: { type: 'user', id: userId }, details: { roles } },
        now,
      );
      return userId;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken(email);
    throw error;
  }
  return getUser(deps, id);
}

/**
 * Keeps at least one unarchived user holding `global_user_admin` globally, so the instance can
 * always be administered.
 * @throws {AppError} 409 `last_user_admin` when `userId` is the last one and would lose it.
 */
async function assertNotLastUserAdmin(trx: Kysely<Database>, user: UserDto): Promise<void> {
  const isAdmin = user.roles.some((r) => r.role === 'global_user_admin' && r.workspace_id === null);
  if (isAdmin && !user.archived && (await repo.countOtherActiveUserAdmins(trx, Number(user.id))) === 0) {
    throw conflict(
      'last_user_admin',
      'This is the last active global_user_admin; assign the role to another user first.',
    );
  }
}

const sameRoles = (a: RoleAssignment[], b: RoleAssignment[]) => {
  const key = (roles: RoleAssignment[]) =>
    roles
      .map((r) => `${r.role}:${r.workspace_id}`)
      .sort()
      .join(',');
  return key(a) === key(b);
};

/**
 * Changes names, email and/or role assignments (omitted fields are kept; `roles` replaces every
 * assignment). Audited as `user_updated` (`details.fields`) and, when roles change, `roles_changed`
 * (`details.before`, `details.after`). Authorisation is the caller's (see `assertCanUpdateUser`).
 * @throws {AppError} 404; 409 `email_taken` or `last_user_admin`; 422 `role_not_scopable`.
 */
export async function updateUser(
  deps: IdentityDeps,
  actor: Actor,
  userId: number,
  input: UserUpdateInput,
): Promise<UserDto> {
  const before = await getUser(deps, userId);
  const now = deps.now();
  const changes: Partial<NewUserRow> = {};
  if (input.first_name !== undefined && input.first_name !== before.first_name) changes.first_name = input.first_name;
  if (input.last_name !== undefined && input.last_name !== before.last_name) changes.last_name = input.last_name;
  const email = input.email?.toLowerCase();
  if (email !== undefined && email !== before.email) changes.email = email;
  const roles = input.roles === undefined ? undefined : normalizeRoles(input.roles, '/data/attributes/roles');
  const rolesChanged = roles !== undefined && !sameRoles(roles, before.roles);
  const fields = Object.keys(changes);
  if (fields.length === 0 && !rolesChanged) return before;
  try {
    await deps.db.transaction().execute(async (trx) => {
      const subject = { type: 'user' as const, id: userId };
      if (fields.length > 0) {
        await repo.updateUser(trx, userId, { ...changes, updated_at: now });
        await recordAction(trx, { event: 'user_updated', actor, user_id: userId, subject, details: { fields } }, now);
      }
      if (roles && rolesChanged) {
        if (!roles.some((r) => r.role === 'global_user_admin' && r.workspace_id === null)) {
          await assertNotLastUserAdmin(trx, before);
        }
        await repo.replaceRoleAssignments(trx, userId, roles.map(toRoleRow), now);
        if (fields.length === 0) await repo.updateUser(trx, userId, { updated_at: now });
        await recordAction(
          trx,
          { event: 'roles_changed', actor, user_id: userId, subject, details: { before: before.roles, after: roles } },
          now,
        );
      }
    });
  } catch (error) {
    if (isUniqueViolation(error) && email) throw emailTaken(email);
    throw error;
  }
  if (rolesChanged) await forgetUser(deps, userId);
  return getUser(deps, userId);
}

async function forgetUser(deps: IdentityDeps, userId: number): Promise<void> {
  const tokens = await listUserAppTokens(deps.db, userId);
  await forgetAuthentications(
    deps,
    tokens.map((t) => t.token_hash),
  );
}

/**
 * Archives a user (idempotent): every token of theirs stops working at once here, and within the
 * auth cache TTL (1 s) in other services. Audited as `user_archived` when the state changes.
 * @throws {AppError} 404; 409 `last_user_admin`.
 */
export async function archiveUser(deps: IdentityDeps, actor: Actor, userId: number): Promise<void> {
  const user = await getUser(deps, userId);
  if (user.archived) return;
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    await assertNotLastUserAdmin(trx, user);
    await repo.updateUser(trx, userId, { archived: 1, updated_at: now });
    await recordAction(
      trx,
      { event: 'user_archived', actor, user_id: userId, subject: { type: 'user', id: userId } },
      now,
    );
  });
  await forgetUser(deps, userId);
}
