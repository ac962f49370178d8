/**
 * Catalog's access rules (foundation level), enforced here and nowhere else:
 *
 * | action                                        | needs                                                  |
 * |-----------------------------------------------|--------------------------------------------------------|
 * | read workspaces, runbooks, tasks              | `developer` (checked by `authedProcedure`)              |
 * | create a workspace                            | `workspace_manager` globally (procedure meta `role`)    |
 * | create/update/delete runbooks and their tasks | `workspace_manager` globally or for the runbook's workspace |
 *
 * Service principals may do everything. Missing resources are reported as 404 before any 403.
 */
import { forbidden, hasRole, type Principal } from '@runbook/contracts';

/** @throws {AppError} 403 unless `principal` may change runbooks and tasks of `workspaceId`. */
export function assertCanManageWorkspace(principal: Principal, workspaceId: number): void {
  if (!hasRole(principal, 'workspace_manager', String(workspaceId))) {
    throw forbidden(
      `The workspace_manager role (globally or for workspace ${workspaceId}) is required for this change.`,
    );
  }
}
