/**
 * tRPC glue for one service: {@link createServiceTRPC} is called once per service and returns its
 * router factory and named base procedures (never `t` itself).
 */
import {
  forbidden,
  hasRole,
  type Principal,
  type ProcedureMeta,
  requiredRoles,
  unauthorized,
} from '@runbook/contracts';
import { initTRPC } from '@trpc/server';
import { errorObjectsFor, toTRPCError } from './errors.js';

/** What every service context carries. Build it with {@link credentialFromHeader}. */
export interface BaseContext {
  /** The bearer credential, or `null` when no Authorization header was sent. */
  credential: string | null;
  /** `true` when an Authorization header was sent but is not `Bearer <credential>`. */
  malformedAuthorization: boolean;
  /**
   * Resolves a credential to a principal.
   * @throws {AppError} 401 for an unknown, expired or revoked credential or an archived user.
   */
  authenticate(credential: string): Promise<Principal>;
}

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/i;

/**
 * Reads `Authorization: Bearer <credential>` (RFC 6750 §2.1).
 * @returns `{credential, malformedAuthorization}`; never throws.
 */
export function credentialFromHeader(header: string | string[] | undefined | null): {
  credential: string | null;
  malformedAuthorization: boolean;
} {
  if (header === undefined || header === null || header === '')
    return { credential: null, malformedAuthorization: false };
  const value = Array.isArray(header) ? (header[0] ?? '') : header;
  const match = BEARER.exec(value.trim());
  return match?.[1]
    ? { credential: match[1], malformedAuthorization: false }
    : { credential: null, malformedAuthorization: true };
}

/**
 * Creates the service's tRPC instance (`isDev: false`: no stack traces leave the process) with the
 * shared error formatter and base procedures:
 * - `publicProcedure` — no credential needed (health-like procedures only);
 * - `authedProcedure` — a user holding `developer` (plus `meta.role`, or one of its roles, when set) or a service;
 *   adds `ctx.principal`;
 * - `internalProcedure` — service credentials only (`meta.auth = 'service'` is implied); users get 403.
 * Every error leaves as an {@link AppError}-shaped `errors` array on the error shape.
 */
export function createServiceTRPC<Ctx extends BaseContext>() {
  const t = initTRPC
    .context<Ctx>()
    .meta<ProcedureMeta>()
    .create({
      isDev: false,
      errorFormatter({ shape, error }) {
        return {
          // An unexpected error's own message (a driver error, say) stays in the service's log.
          message: error.code === 'INTERNAL_SERVER_ERROR' ? 'An unexpected error occurred.' : shape.message,
          code: shape.code,
          data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path },
          errors: errorObjectsFor(error),
        };
      },
    });

  const base = t.procedure.use(async ({ next }) => {
    const result = await next();
    if (!result.ok) throw toTRPCError(result.error);
    return result;
  });
  return {
    router: t.router,
    mergeRouters: t.mergeRouters,
    middleware: t.middleware,
    createCallerFactory: t.createCallerFactory,
    publicProcedure: base,
    authedProcedure: base.use(async ({ ctx, meta, next }) =>
      next({ ctx: { principal: await principalFor(ctx, meta, 'user') } }),
    ),
    internalProcedure: base
      .meta({ auth: 'service' })
      .use(async ({ ctx, meta, next }) => next({ ctx: { principal: await principalFor(ctx, meta, 'service') } })),
  };
}

/**
 * Authenticates the context's credential and applies the procedure's access rule (meta `auth`/`role`).
 * @throws {AppError} 401 without a valid credential, 403 when the principal may not call.
 */
async function principalFor(
  ctx: BaseContext,
  meta: ProcedureMeta | undefined,
  mode: 'user' | 'service',
): Promise<Principal> {
  if (ctx.malformedAuthorization) throw unauthorized('The Authorization header must be "Bearer <token>".');
  if (!ctx.credential) throw unauthorized('A bearer token is required: send "Authorization: Bearer <token>".');
  const principal = await ctx.authenticate(ctx.credential);
  if ((mode === 'service' || meta?.auth === 'service') && principal.kind !== 'service') {
    throw forbidden('This procedure is internal and accepts service credentials only.');
  }
  if (principal.kind === 'user') {
    if (!principal.roles.some((r) => r.role === 'developer'))
      throw forbidden('The developer role is required to use the API.');
    // `developer` may be held in a workspace only (checked above); a further role must be global.
    const roles = meta?.role === undefined ? [] : requiredRoles(meta);
    if (roles.length > 0 && !roles.some((role) => hasRole(principal, role)))
      throw forbidden(
        roles.length === 1
          ? `The ${roles[0]} role is required for this operation.`
          : `One of the roles ${roles.join(', ')} is required for this operation.`,
      );
  }
  return principal;
}
