/**
 * Roles and principals. The role table below is the single source of truth for what each role
 * permits; services enforce it through the `role` field of each procedure's meta (see `@runbook/rpc`).
 * Role names follow the reference product's (Developer, Integrations Admin, Workspace Manager,
 * Global User Admin).
 */
import { z } from 'zod';

/** Every role, with what it permits. */
export const roleTable = {
  developer:
    'Required for any API call (globally or for a workspace). Read users, teams, system parameters and the visible workspaces with their runbooks and tasks; act on tasks assigned to them or to a team they belong to.',
  integrations_admin: 'Create, edit and delete system parameters and integrations. Global only.',
  workspace_manager:
    'Create workspaces and teams and manage team members (global); create, edit and delete runbooks and tasks (globally or in one workspace).',
  global_user_admin:
    'Create, edit and archive users, assign roles, create teams and manage team members, manage other users\u2019 user app tokens and read the audit trail (action logs). Global only.',
} as const;

/** A role name. */
export type Role = keyof typeof roleTable;

/**
 * Roles of which one (held globally) lets a user create, change and delete teams and their members
 * (DESIGN §4: workspace managers and global user admins both manage teams). Procedure meta `role`.
 */
export const TEAM_MANAGER_ROLES = ['workspace_manager', 'global_user_admin'] as const satisfies readonly [
  Role,
  ...Role[],
];
/** Zod enum of role names. */
export const roleSchema = z.enum(Object.keys(roleTable) as [Role, ...Role[]]);
/** All roles, in table order. */
export const allRoles = Object.keys(roleTable) as Role[];

/** A role held globally (`workspace_id` null) or within one workspace. */
export const roleAssignmentSchema = z.object({ role: roleSchema, workspace_id: z.string().nullable() });
/** TypeScript type of {@link roleAssignmentSchema}. */
export type RoleAssignment = z.infer<typeof roleAssignmentSchema>;

/** Who is calling: a user (through a user app token) or another service (through a service credential). */
export const principalSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('user'),
    user_id: z.string(),
    token_id: z.string(),
    roles: z.array(roleAssignmentSchema),
  }),
  z.object({ kind: z.literal('service'), service: z.string() }),
]);
/** Who is calling: a user (id and role assignments) or a service (its name); what `authenticate()` resolves a credential to. */
export type Principal = z.infer<typeof principalSchema>;
/** The user variant of {@link Principal}. */
export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/**
 * `true` when `principal` holds `role` globally, or in `workspaceId` when given.
 * Services always pass; users need the assignment.
 */
export function hasRole(principal: Principal, role: Role, workspaceId?: string | null): boolean {
  if (principal.kind === 'service') return true;
  return principal.roles.some(
    (r) => r.role === role && (r.workspace_id === null || (workspaceId != null && r.workspace_id === workspaceId)),
  );
}
