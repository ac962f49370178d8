/**
 * Identity's access rules, enforced here and nowhere else (procedure meta `role` is checked by
 * `authedProcedure`; the rules that depend on the target are below):
 *
 * | action                                              | needs                                          |
 * |-----------------------------------------------------|------------------------------------------------|
 * | read users, teams, role types                       | `developer` (any scope)                         |
 * | create or archive a user, change roles or email     | `global_user_admin`                             |
 * | change a user's first/last name                     | the user themselves or `global_user_admin`      |
 * | list, create, revoke a user's user app tokens       | the user themselves or `global_user_admin`      |
 * | create, update, delete teams; add/remove members    | `workspace_manager` (global)                    |
 * | read the audit trail (action logs)                  | `global_user_admin`                             |
 *
 * "Global" means assigned with `workspace_id` null. Service principals may do everything.
 */
import { forbidden, hasRole, type Principal, type UserUpdateInput } from '@runbook/contracts';

/** Who performed an action, as recorded in the audit trail. */
export interface Actor {
  /** The acting user's id, or null when a service (or nobody) acted. */
  actor_id: number | null;
  /** The acting service, e.g. `identity` for first-run setup. */
  actor_service: string | null;
}

/** The {@link Actor} of a principal. */
export const actorOf = (principal: Principal): Actor =>
  principal.kind === 'user'
    ? { actor_id: Number(principal.user_id), actor_service: null }
    : { actor_id: null, actor_service: principal.service };

/** The actor of identity's own first-run setup. */
export const systemActor: Actor = { actor_id: null, actor_service: 'identity' };

const isSelf = (principal: Principal, userId: number) =>
  principal.kind === 'user' && principal.user_id === String(userId);

/**
 * Users may act on themselves; `global_user_admin` may act on anyone.
 * @throws {AppError} 403 `forbidden` otherwise.
 */
export function assertSelfOrUserAdmin(principal: Principal, userId: number): void {
  if (isSelf(principal, userId) || hasRole(principal, 'global_user_admin')) return;
  throw forbidden('Only the user themselves or a global_user_admin may do this.');
}

/**
 * Names may be changed by the user themselves or a `global_user_admin`; `email` and `roles` by a
 * `global_user_admin` only.
 * @throws {AppError} 403 `forbidden` naming the first field the caller may not change.
 */
export function assertCanUpdateUser(principal: Principal, userId: number, input: UserUpdateInput): void {
  if (hasRole(principal, 'global_user_admin')) return;
  for (const field of ['email', 'roles'] as const) {
    if (input[field] !== undefined) throw forbidden(`Changing ${field} requires the global_user_admin role.`);
  }
  assertSelfOrUserAdmin(principal, userId);
}
