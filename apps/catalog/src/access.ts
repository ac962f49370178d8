/**
 * Catalog's access rules (foundation level), enforced here and nowhere else:
 *
 * | action                                        | needs                                                  |
 * |-----------------------------------------------|--------------------------------------------------------|
 * | read workspaces, runbooks, tasks              | `developer` (checked by `authedProcedure`), in a visible workspace |
 * | create a workspace                            | `workspace_manager` globally (procedure meta `role`)    |
 * | create/update/delete runbooks and their tasks | `workspace_manager` globally or for the runbook's workspace |
 * | start/pause/resume/cancel a run               | `workspace_manager` globally or for the runbook's workspace |
 * | start/finish/skip a task                      | the above, or being a user the task is assigned to, directly or through a team |
 * | create/update/delete integrations             | `integrations_admin` globally (procedure meta `role`)   |
 * | create/update custom field definitions        | `workspace_manager` globally (procedure meta `role`)    |
 * | comment on runbooks and tasks                 | `developer`                                             |
 *
 * Visibility (workspace scoping): a user holding any role globally (`workspace_id` null) sees every
 * workspace; a user holding only workspace-scoped roles sees exactly those workspaces, and their
 * runbooks and tasks. Lists leave out what is not visible; a resource that is not visible answers
 * 404 like a missing one.
 *
 * Service principals may do everything. Missing and invisible resources are reported as 404 before any 403.
 */
import { type Assignee, forbidden, hasRole, notFound, type Principal } from '@runbook/contracts';
import type { CatalogDeps } from './deps.js';
import { findRunbookById } from './runbooks/runbooks.repository.js';

/**
 * The workspaces `principal` may see: `'all'` for services and for users holding any role globally,
 * otherwise the ids of the workspaces in which the user holds a role.
 */
export function visibleWorkspaces(principal: Principal): 'all' | number[] {
  if (principal.kind === 'service' || principal.roles.some((r) => r.workspace_id === null)) return 'all';
  return [...new Set(principal.roles.map((r) => Number(r.workspace_id)))];
}

/**
 * The workspace filter of a list for `principal`, given the workspace the caller asked for (if
 * any): `{}` (everything), `{workspace_id}` (one workspace: an equality filter, which lets cursor
 * pages seek the `(workspace_id, sort, id)` indexes), or `{workspace_ids}` (several, or none: `[]`
 * when the workspace asked for is not visible).
 */
export function workspaceScope(
  principal: Principal,
  requested: number | undefined,
): { workspace_id?: number; workspace_ids?: number[] } {
  const visible = visibleWorkspaces(principal);
  if (visible === 'all') return requested === undefined ? {} : { workspace_id: requested };
  if (requested !== undefined) return visible.includes(requested) ? { workspace_id: requested } : { workspace_ids: [] };
  const [only] = visible;
  return visible.length === 1 && only !== undefined ? { workspace_id: only } : { workspace_ids: visible };
}

/** `true` when `principal` may see workspace `workspaceId`. */
export function canSeeWorkspace(principal: Principal, workspaceId: number): boolean {
  const visible = visibleWorkspaces(principal);
  return visible === 'all' || visible.includes(workspaceId);
}

/**
 * @param subject what the caller asked for, named in the 404 exactly as if it did not exist.
 * @throws {AppError} 404 `not_found` unless `principal` may see workspace `workspaceId`.
 */
export function assertVisible(principal: Principal, workspaceId: number, subject: { type: string; id: string }): void {
  if (!canSeeWorkspace(principal, workspaceId)) throw notFound(subject.type, subject.id);
}

/**
 * Reads the runbook's workspace (only for principals with a limited view: no query otherwise).
 * @throws {AppError} 404 `not_found` when the runbook is missing or not visible to `principal`.
 */
export async function assertRunbookVisible(deps: CatalogDeps, principal: Principal, runbookId: number): Promise<void> {
  if (visibleWorkspaces(principal) === 'all') return;
  const runbook = await findRunbookById(deps.db, runbookId);
  if (!runbook || !canSeeWorkspace(principal, runbook.workspace_id)) throw notFound('runbook', String(runbookId));
}

/**
 * @param subject what is being changed, named in the 404 when the workspace is not visible (default: the workspace).
 * @throws {AppError} 404 when the workspace is not visible to `principal`; 403 unless `principal` may
 * change runbooks and tasks of `workspaceId`.
 */
export function assertCanManageWorkspace(
  principal: Principal,
  workspaceId: number,
  subject: { type: string; id: string } = { type: 'workspace', id: String(workspaceId) },
): void {
  assertVisible(principal, workspaceId, subject);
  if (!hasRole(principal, 'workspace_manager', String(workspaceId))) {
    throw forbidden(
      `The workspace_manager role (globally or for workspace ${workspaceId}) is required for this change.`,
    );
  }
}

/**
 * Whether `principal` may start, finish or skip a task of workspace `workspaceId` assigned to
 * `assignees`: a workspace_manager (globally or for the workspace), a user the task is assigned to,
 * or a member of a team it is assigned to (DESIGN §4: members act on tasks assigned to them).
 * Team membership lives in identity, so it is a separate, later question:
 * @param teamsOfUser the task's teams the user belongs to, once asked of identity; `undefined` before.
 * @returns `'allowed'`; `'ask_teams'` when only membership in one of the task's teams could allow
 * it and `teamsOfUser` is not known yet; otherwise throws.
 * @throws {AppError} 403 `forbidden` when the principal may not act on the task.
 */
export function checkTaskAction(
  principal: Principal,
  workspaceId: number,
  assignees: readonly Assignee[],
  teamsOfUser?: ReadonlySet<string>,
): 'allowed' | 'ask_teams' {
  if (hasRole(principal, 'workspace_manager', String(workspaceId))) return 'allowed';
  if (principal.kind === 'user') {
    const teams = assignees.filter((a) => a.type === 'team');
    if (assignees.some((a) => a.type === 'user' && a.id === principal.user_id)) return 'allowed';
    if (teams.length > 0 && teamsOfUser === undefined) return 'ask_teams';
    if (teams.some((a) => teamsOfUser?.has(a.id))) return 'allowed';
  }
  throw forbidden(
    `Only a user the task is assigned to (directly or through one of its teams), or a workspace_manager (globally or for workspace ${workspaceId}), may act on it.`,
  );
}
