/** Catalog's tRPC instance and context (two layers: `createContextInner` from values, `createContext` from a request). */
import { type BaseContext, createServiceTRPC, credentialFromHeader } from '@runbook/rpc';
import type { FastifyRequest } from 'fastify';
import type { CatalogDeps } from './deps.js';

export interface Context extends BaseContext {
  deps: CatalogDeps;
}

/** Context from plain values (tests use this). */
export function createContextInner(
  deps: CatalogDeps,
  credential: string | null,
  malformedAuthorization = false,
): Context {
  return { deps, credential, malformedAuthorization, authenticate: deps.authenticate };
}

/** Context from an HTTP request: reads the Authorization header only. */
export const createContext = (deps: CatalogDeps) => (req: FastifyRequest) => {
  const { credential, malformedAuthorization } = credentialFromHeader(req.headers.authorization);
  return createContextInner(deps, credential, malformedAuthorization);
};

export const { router, authedProcedure, internalProcedure, publicProcedure, createCallerFactory } =
  createServiceTRPC<Context>();
