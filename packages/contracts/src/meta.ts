/** Procedure meta: OpenAPI publication (trpc-to-openapi) plus who may call and the REST success status. */
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Role } from './auth.js';

/**
 * - `auth`: `public` (no credential), `user` (the default: a user app token of a user holding
 *   `developer`, or a service credential), `service` (service credential only; never published as REST).
 * - `role`: a further role the caller must hold globally — or, given a list, any one of them;
 *   workspace-scoped checks live in services.
 * - `status`: REST status on success (default 200; 201 for creates, 204 for deletes).
 */
export type ProcedureMeta = OpenApiMeta & {
  auth?: 'public' | 'user' | 'service';
  role?: Role | readonly [Role, ...Role[]];
  status?: 200 | 201 | 204;
};

/**
 * The roles of which a caller of a procedure with `meta` must hold one: `meta.role` as a list (held
 * globally), or `['developer']` when it names none (every user needs `developer`, globally or in a
 * workspace). Published per operation as `x-required-roles` in the gateway's OpenAPI document.
 */
export function requiredRoles(meta: ProcedureMeta | undefined): [Role, ...Role[]] {
  const role = meta?.role;
  if (role === undefined) return ['developer'];
  return typeof role === 'string' ? [role] : [...role];
}
