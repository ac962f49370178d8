/**
 * What other services import from identity: a typed client and a cached authenticator that asks
 * identity's internal `auth.authenticate` with the caller's service credential.
 */

import { createHash } from 'node:crypto';
import type { Cache } from '@runbook/cache';
import { AppError, type Principal, unauthorized } from '@runbook/contracts';
import { createServiceClient } from '@runbook/rpc';
import { TRPCClientError } from '@trpc/client';
import { LRUCache } from 'lru-cache';
import type { IdentityRouter } from './router.js';

/** A typed tRPC client for identity at `baseUrl`, authenticating with `serviceCredential` by default. */
export const createIdentityClient = (baseUrl: string, serviceCredential: string) =>
  createServiceClient<IdentityRouter>(baseUrl, serviceCredential);
/** The client's type (e.g. for another service's deps). */
export type IdentityClient = ReturnType<typeof createIdentityClient>;

/** Entries of the in-process tier of {@link createCachedAuthenticator}, at most (least recently used go first). */
const LOCAL_PRINCIPALS_MAX = 10_000;

/** What the shared cache holds per credential: the principal and when identity's answer stops counting. */
interface SharedEntry {
  principal: Principal;
  /** Epoch ms: identity's answer plus the TTL, whoever wrote the entry. */
  expires_at: number;
}

const deepFreeze = (principal: Principal): Principal => {
  if (principal.kind === 'user') {
    for (const role of principal.roles) Object.freeze(role);
    Object.freeze(principal.roles);
  }
  return Object.freeze(principal);
};

/**
 * Returns `authenticate(credential)` for a service's context: asks identity once per credential per
 * `ttlMs` (default 1000 ms — the documented bound on how late a revocation takes effect) and shares
 * in-flight lookups, so concurrent requests with one token cost one call.
 *
 * Two tiers: `cache` (Redis when configured) shares identity's answers between replicas and services,
 * and an in-process LRU of at most 10,000 parsed principals sits in front of it, so a warm request
 * costs no round trip at all. An answer is reused only until `expires_at` = the moment identity gave
 * it + `ttlMs`, in either tier (an in-process entry copied from the shared one keeps the shared
 * entry's expiry, capped at `ttlMs` against clock skew): the revocation bound holds however the
 * answer travelled. The credential is only ever a SHA-256 key, never stored. Principals returned are
 * frozen (one object serves many requests). Rationale: docs/adr/0008-authentication-cache-tiers.md.
 * @throws {AppError} 401 from identity; 503 `service_unavailable` when identity cannot be reached.
 */
export function createCachedAuthenticator(client: IdentityClient, cache: Cache, ttlMs = 1000) {
  const inFlight = new Map<string, Promise<Principal>>();
  const local = new LRUCache<string, Principal>({ max: LOCAL_PRINCIPALS_MAX, ttlAutopurge: false });
  // `v2:` entries carry `expires_at`; earlier releases stored a bare principal under the unversioned key.
  const sharedKey = (hash: string) => `v2:${hash}`;

  const fromShared = async (hash: string): Promise<Principal | null> => {
    const raw = await cache.get(sharedKey(hash));
    if (!raw) return null;
    const entry = JSON.parse(raw) as SharedEntry;
    const remaining = Math.min(entry.expires_at - Date.now(), ttlMs);
    if (!(remaining > 0)) return null;
    const principal = deepFreeze(entry.principal);
    local.set(hash, principal, { ttl: remaining });
    return principal;
  };

  const fromIdentity = (hash: string, credential: string): Promise<Principal> =>
    client.auth.authenticate
      .query({ credential })
      .then(async (answer) => {
        const principal = deepFreeze(answer);
        if (ttlMs > 0) {
          local.set(hash, principal, { ttl: ttlMs });
          const entry: SharedEntry = { principal, expires_at: Date.now() + ttlMs };
          await cache.set(sharedKey(hash), JSON.stringify(entry), ttlMs);
        }
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
      });

  return async function authenticate(credential: string): Promise<Principal> {
    const hash = createHash('sha256').update(credential).digest('base64url');
    const known = local.get(hash);
    if (known) return known;
    let pending = inFlight.get(hash);
    if (!pending) {
      pending = fromShared(hash)
        .then((shared) => shared ?? fromIdentity(hash, credential))
        .finally(() => inFlight.delete(hash));
      inFlight.set(hash, pending);
    }
    return pending;
  };
}
