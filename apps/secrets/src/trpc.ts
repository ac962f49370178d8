/** The secrets service's tRPC instance and context (two layers: `createContextInner` from values, `createContext` from a request). */
import { type BaseContext, createServiceTRPC, credentialFromHeader } from '@runbook/rpc';
import type { FastifyRequest } from 'fastify';
import type { SecretsDeps } from './deps.js';

/** Context of every procedure: the service's deps plus the caller's credential. */
export interface Context extends BaseContext {
  deps: SecretsDeps;
}

/** Context from plain values (tests use this). Authentication is `deps.authenticate` (identity, cached). */
export function createContextInner(
  deps: SecretsDeps,
  credential: string | null,
  malformedAuthorization = false,
): Context {
  return { deps, credential, malformedAuthorization, authenticate: deps.authenticate };
}

/** Context from an HTTP request: reads the Authorization header only. */
export const createContext = (deps: SecretsDeps) => (req: FastifyRequest) => {
  const { credential, malformedAuthorization } = credentialFromHeader(req.headers.authorization);
  return createContextInner(deps, credential, malformedAuthorization);
};

/** The router factory and base procedures (see `createServiceTRPC`): `authedProcedure` = developer or service; `internalProcedure` = services only. */
export const { router, authedProcedure, internalProcedure, publicProcedure, createCallerFactory } =
  createServiceTRPC<Context>();
