/** Identity's tRPC instance and context (two layers: `createContextInner` from values, `createContext` from a request). */
import type { Principal } from '@runbook/contracts';
import { type BaseContext, createServiceTRPC, credentialFromHeader } from '@runbook/rpc';
import type { FastifyRequest } from 'fastify';
import { authenticate } from './auth/authenticate.js';
import type { IdentityDeps } from './deps.js';

export interface Context extends BaseContext {
  deps: IdentityDeps;
}

/** Context from plain values (tests use this). */
export function createContextInner(
  deps: IdentityDeps,
  credential: string | null,
  malformedAuthorization = false,
): Context {
  return {
    deps,
    credential,
    malformedAuthorization,
    authenticate: (c: string): Promise<Principal> => authenticate(deps, c),
  };
}

/** Context from an HTTP request: reads the Authorization header only. */
export const createContext = (deps: IdentityDeps) => (req: FastifyRequest) => {
  const { credential, malformedAuthorization } = credentialFromHeader(req.headers.authorization);
  return createContextInner(deps, credential, malformedAuthorization);
};

export const { router, authedProcedure, internalProcedure, publicProcedure, createCallerFactory } =
  createServiceTRPC<Context>();
