/**
 * What other services import from identity: a typed client and a cached authenticator that asks
 * identity's internal `auth.authenticate` with the caller's service credential.
 */

import { createHash } from 'node:crypto';
import type { Cache } from '@runbook/cache';
import { AppError, type Principal, unauthorized } from '@runbook/contracts';
import { createServiceClient } from '@runbook/rpc';
import { TRPCClientError } from '@trpc/client';
import type { IdentityRouter } from './router.js';

/** A typed tRPC client for identity at `baseUrl`, authenticating with `serviceCredential` by default. */
export const createIdentityClient = (baseUrl: string, serviceCredential: string) =>
  createServiceClient<IdentityRouter>(baseUrl, serviceCredential);
export type IdentityClient = ReturnType<typeof createIdentityClient>;

/**
 * Returns `authenticate(credential)` for a service's context: asks identity once per credential per
 * `ttlMs` (default 1000 ms — the documented bound on how late a revocation takes effect) and shares
 * in-flight lookups, so concurrent requests with one token cost one call.
 * @throws {AppError} 401 from identity; 503 `service_unavailable` when identity cannot be reached.
 */
export function createCachedAuthenticator(client: IdentityClient, cache: Cache, ttlMs = 1000) {
  const inFlight = new Map<string, Promise<Principal>>();
  return async function authenticate(credential: string): Promise<Principal> {
    const key = createHash('sha256').update(credential).digest('base64url');
    const cached = await cache.get(key);
    if (cached) return JSON.parse(cached) as Principal;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = client.auth.authenticate
        .query({ credential })
        .then(async (principal) => {
          await cache.set(key, JSON.stringify(principal), ttlMs);
          return principal;
        })
        .catch((error: unknown) => {
          if (error instanceof TRPCClientError) {
            const errors = (error.shape as { errors?: AppError['errors'] } | undefined)?.errors;
            if (errors?.[0]?.status === '401') throw unauthorized(errors[0].detail);
            if (errors) throw AppError.fromErrors(errors);
            throw new AppError(503, 'service_unavailable', 'The identity service is unavailable; try again shortly.', {
              retryAfter: 1,
              cause: error,
            });
          }
          throw error;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };
}
