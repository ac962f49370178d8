/** REST `/core/users`, `/core/users/{user_id}/user_app_tokens` and `/core/role_types` (reference API). */
import {
  forbidden,
  idSchema,
  listDocument as listDocumentSchema,
  pageQueryShape,
  type RoleAssignment,
  resourceSchema,
  roleAssignmentSchema,
  roleTable,
  scopableRoles,
  singleDocument,
  strictBody,
  type UserAppTokenDto,
  type UserDto,
  unprocessable,
  userAppTokenAttributes,
  userAppTokenCreateAttributes,
  userAttributes,
  userUpdateAttributes,
  writeDocument,
} from '@runbook/contracts';
import type { ServiceCallContext } from '@runbook/rpc';
import { z } from 'zod';
import type { GatewayDeps } from '../deps.js';
import { listDocument, one, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

export const userResource = resourceSchema('user', userAttributes).meta({ id: 'User' });
export const userAppTokenResource = resourceSchema(
  'user_app_token',
  userAppTokenAttributes,
  z.object({ user: z.object({ data: z.object({ id: z.string(), type: z.literal('user') }).nullable() }) }),
).meta({ id: 'UserAppToken' });

const toUser = ({ id, ...attributes }: UserDto) => ({ id, type: 'user' as const, attributes });
const toToken = ({ id, user_id, ...attributes }: UserAppTokenDto) => ({
  id,
  type: 'user_app_token' as const,
  attributes,
  relationships: { user: one('user', user_id) },
});

/**
 * Workspace-scoped role assignments must name existing workspaces (identity cannot check: it calls
 * no other service). Asks catalog once per distinct workspace, as the caller — after making sure the
 * caller may assign roles at all, so a caller without the role gets 403 rather than a 422 about a
 * workspace.
 * @throws {AppError} 403 without global_user_admin; 422 `unknown_workspace` pointing at the first
 * assignment naming a missing (or invisible) workspace.
 */
async function assertWorkspacesExist(
  deps: GatewayDeps,
  forward: { context: ServiceCallContext },
  roles: RoleAssignment[] | undefined,
): Promise<void> {
  const ids = [...new Set((roles ?? []).flatMap((r) => (r.workspace_id === null ? [] : [r.workspace_id])))];
  if (ids.length === 0) return;
  const me = await deps.identity.users.me.query(undefined, forward);
  if (!me.roles.some((r) => r.role === 'global_user_admin' && r.workspace_id === null)) {
    throw forbidden('Changing roles requires the global_user_admin role.');
  }
  const missing = new Set<string>();
  await Promise.all(
    ids.map((id) =>
      deps.catalog.workspaces.get.query({ id }, forward).catch((error: { data?: { httpStatus?: number } }) => {
        if (error?.data?.httpStatus !== 404) throw error;
        missing.add(id);
      }),
    ),
  );
  const index = (roles ?? []).findIndex((r) => r.workspace_id !== null && missing.has(r.workspace_id));
  if (index >= 0) {
    const id = roles?.[index]?.workspace_id;
    throw unprocessable(
      'unknown_workspace',
      `No workspace with id "${id}".`,
      `/data/attributes/roles/${index}/workspace_id`,
    );
  }
}

export const usersRouter = router({
  /** List Users; `query` searches names and email. Role: developer. */
  list: forwardingProcedure
    .meta({ openapi: { method: 'GET', path: '/core/users', tags: ['users'], summary: 'List Users' } })
    .input(z.object({ query: z.string().max(200).optional(), ...pageQueryShape }))
    .output(listDocumentSchema(userResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.identity.users.list.query(
        { ...(input.query ? { query: input.query } : {}), page: pageRequestOf(input) },
        ctx.forward,
      );
      return listDocument(ctx.deps.publicUrl, '/core/users', { query: input.query }, input, page, toUser);
    }),

  /** The calling user. Role: developer. */
  me: forwardingProcedure
    .meta({ openapi: { method: 'GET', path: '/core/me', tags: ['users'], summary: 'Get the calling user' } })
    .input(z.object({}))
    .output(singleDocument(userResource))
    .query(async ({ ctx }) => ({ data: toUser(await ctx.deps.identity.users.me.query(undefined, ctx.forward)) })),

  /** Get a User. Errors: 404. Role: developer. */
  get: forwardingProcedure
    .meta({ openapi: { method: 'GET', path: '/core/users/{id}', tags: ['users'], summary: 'Get a User' } })
    .input(z.object({ id: idSchema }))
    .output(singleDocument(userResource))
    .query(async ({ ctx, input }) => ({ data: toUser(await ctx.deps.identity.users.get.query(input, ctx.forward)) })),

  /**
   * Create a User with `first_name`, `last_name`, `email`, `roles` (`[{role, workspace_id}]`;
   * `workspace_id` null = global; only developer and workspace_manager may name a workspace).
   * Role: global_user_admin. Errors: 409 `email_taken`; 422 invalid fields, `role_not_scopable`, `unknown_workspace`.
   */
  create: forwardingProcedure
    .meta({
      role: 'global_user_admin',
      status: 201,
      openapi: { method: 'POST', path: '/core/users', tags: ['users'], summary: 'Create a User' },
    })
    .input(
      z.object({
        data: strictBody(
          writeDocument(
            'user',
            z.object({
              first_name: z.string().trim().min(1).max(100).meta({ example: 'Ada' }),
              last_name: z.string().trim().min(1).max(100).meta({ example: 'Lovelace' }),
              email: z.email().max(254).meta({ example: 'ada@example.com' }),
              roles: z.array(roleAssignmentSchema).max(50).default([]),
            }),
          ),
        ),
      }),
    )
    .output(singleDocument(userResource))
    .mutation(async ({ ctx, input }) => {
      await assertWorkspacesExist(ctx.deps, ctx.forward, input.data.attributes.roles);
      return { data: toUser(await ctx.deps.identity.users.create.mutate(input.data.attributes, ctx.forward)) };
    }),

  /**
   * Update a User: `first_name`, `last_name` (the user themselves or global_user_admin), `email` and
   * `roles` (global_user_admin; `roles` replaces every assignment and takes effect within 1 s
   * everywhere). Omitted attributes are kept. Role: developer; global_user_admin for email, roles and
   * other users. Errors: 403; 404; 409 `email_taken`, `last_user_admin`; 422 invalid fields,
   * `role_not_scopable`, `unknown_workspace`.
   */
  update: forwardingProcedure
    .meta({ openapi: { method: 'PATCH', path: '/core/users/{id}', tags: ['users'], summary: 'Update a User' } })
    .input(z.object({ id: idSchema, data: strictBody(writeDocument('user', userUpdateAttributes)) }))
    .output(singleDocument(userResource))
    .mutation(async ({ ctx, input }) => {
      await assertWorkspacesExist(ctx.deps, ctx.forward, input.data.attributes.roles);
      const dto = await ctx.deps.identity.users.update.mutate({ id: input.id, ...input.data.attributes }, ctx.forward);
      return { data: toUser(dto) };
    }),

  /**
   * Archive a User (idempotent): their tokens stop working at once (within the 1 s auth cache TTL on
   * every service). 204. Role: global_user_admin. Errors: 404; 409 `last_user_admin`.
   */
  archive: forwardingProcedure
    .meta({
      role: 'global_user_admin',
      status: 204,
      openapi: { method: 'PATCH', path: '/core/users/{id}/archive', tags: ['users'], summary: 'Archive a User' },
    })
    .input(z.object({ id: idSchema }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.identity.users.archive.mutate(input, ctx.forward);
    }),

  /**
   * tRPC only (not REST): sets a user's web sign-in password. Users set their own with
   * `current_password` (when they have one); a global_user_admin sets anyone's. Input
   * `{id, password, current_password?}`. Errors: 403, 404, 422 `password_too_short`, `current_password_incorrect`.
   */
  setPassword: forwardingProcedure
    .input(z.object({ id: idSchema, password: z.string().max(256), current_password: z.string().max(256).optional() }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.identity.users.setPassword.mutate(input, ctx.forward);
    }),
});

export const userAppTokensRouter = router({
  /** List a user's User App Tokens, newest first (never their plaintext). Role: developer, for their own; global_user_admin for anyone's. Errors: 403, 404. */
  list: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/users/{user_id}/user_app_tokens',
        tags: ['user_app_tokens'],
        summary: 'List User App Tokens',
      },
    })
    .input(z.object({ user_id: idSchema }))
    .output(z.object({ data: z.array(userAppTokenResource) }))
    .query(async ({ ctx, input }) => ({
      data: (await ctx.deps.identity.userAppTokens.list.query(input, ctx.forward)).map(toToken),
    })),

  /**
   * Create a User App Token (`label` required, `expires_at` optional; the instance's maximum
   * lifetime applies when set). The plaintext token is in `meta.token`, shown this once. Role:
   * developer, for themselves; global_user_admin for anyone. Errors: 403, 404, 409 `user_archived`, 422 `invalid_expiry`.
   */
  create: forwardingProcedure
    .meta({
      status: 201,
      openapi: {
        method: 'POST',
        path: '/core/users/{user_id}/user_app_tokens',
        tags: ['user_app_tokens'],
        summary: 'Create a User App Token',
      },
    })
    .input(
      z.object({ user_id: idSchema, data: strictBody(writeDocument('user_app_token', userAppTokenCreateAttributes)) }),
    )
    .output(singleDocument(userAppTokenResource).extend({ meta: z.object({ token: z.string() }) }))
    .mutation(async ({ ctx, input }) => {
      const { token, plaintext } = await ctx.deps.identity.userAppTokens.create.mutate(
        { user_id: input.user_id, ...input.data.attributes },
        ctx.forward,
      );
      return { data: toToken(token), meta: { token: plaintext } };
    }),

  /** Revoke a User App Token (idempotent); 204; it stops working within 1 s everywhere. Role: developer, for their own; global_user_admin for anyone's. Errors: 403, 404. */
  revoke: forwardingProcedure
    .meta({
      status: 204,
      openapi: {
        method: 'DELETE',
        path: '/core/users/{user_id}/user_app_tokens/{id}',
        tags: ['user_app_tokens'],
        summary: 'Revoke a User App Token',
      },
    })
    .input(z.object({ user_id: idSchema, id: idSchema }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.identity.userAppTokens.revoke.mutate(input, ctx.forward);
    }),
});

export const roleTypesRouter = router({
  /**
   * List Role Types: every role, what it permits (one table: `roleTable` in @runbook/contracts) and
   * whether it may be assigned for one workspace (`scopable`). Role: developer.
   */
  list: forwardingProcedure
    .meta({ openapi: { method: 'GET', path: '/core/role_types', tags: ['users'], summary: 'List Role Types' } })
    .input(z.object({}))
    .output(
      z.object({
        data: z.array(
          z.object({
            id: z.string(),
            type: z.literal('role_type'),
            attributes: z.object({ name: z.string(), description: z.string(), scopable: z.boolean() }),
          }),
        ),
      }),
    )
    .query(async ({ ctx }) => {
      // Validates the caller like every other route before answering.
      await ctx.deps.identity.users.me.query(undefined, ctx.forward);
      return {
        data: Object.entries(roleTable).map(([name, description]) => ({
          id: name,
          type: 'role_type' as const,
          attributes: { name, description, scopable: scopableRoles.includes(name as RoleAssignment['role']) },
        })),
      };
    }),
});
