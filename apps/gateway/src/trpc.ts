/**
 * The gateway's tRPC instance. Gateway procedures do no authentication work of their own: they
 * check that a well-formed bearer credential is present (401 otherwise, before any downstream
 * call) and forward it; each service authenticates it with identity (DESIGN §2).
 */
import { unauthorized } from '@runbook/contracts';
import { type BaseContext, createServiceTRPC, credentialFromHeader, type ServiceCallContext } from '@runbook/rpc';
import type { FastifyRequest } from 'fastify';
import type { GatewayDeps } from './deps.js';

export interface Context extends BaseContext {
  deps: GatewayDeps;
  /** The raw `If-Match` request header (conditional updates), or null when absent. */
  ifMatch: string | null;
}

/** Context from plain values (tests use this). */
export function createContextInner(
  deps: GatewayDeps,
  credential: string | null,
  malformedAuthorization = false,
  ifMatch: string | null = null,
): Context {
  return {
    deps,
    credential,
    malformedAuthorization,
    ifMatch,
    authenticate: async () => {
      throw unauthorized('The gateway does not authenticate; services do.');
    },
  };
}

/** Context from an HTTP request: reads the Authorization and If-Match headers only. */
export const createContext = (deps: GatewayDeps) => (req: FastifyRequest) => {
  const { credential, malformedAuthorization } = credentialFromHeader(req.headers.authorization);
  return createContextInner(deps, credential, malformedAuthorization, req.headers['if-match'] ?? null);
};

const t = createServiceTRPC<Context>();
export const { router, createCallerFactory } = t;

/**
 * Base of every REST/tRPC gateway procedure: requires `Authorization: Bearer <token>` and exposes
 * `ctx.forward` — the per-call context that makes a service client present the caller's credential.
 */
export const forwardingProcedure = t.publicProcedure.use(({ ctx, next }) => {
  if (ctx.malformedAuthorization) throw unauthorized('The Authorization header must be "Bearer <token>".');
  if (!ctx.credential) throw unauthorized('A bearer token is required: send "Authorization: Bearer <token>".');
  const forward: { context: ServiceCallContext } = { context: { credential: ctx.credential } };
  return next({ ctx: { forward } });
});
