/** Identity's dependencies, built once by `index.ts` (or by tests) and passed down. */
import type { Cache } from '@runbook/cache';
import type { Logger } from '@runbook/rpc';
import type { Kysely } from 'kysely';
import type { Database } from './db/database.js';

export interface IdentityConfig {
  /** How long a successful authentication may be reused before identity is asked again (ms). Bounds revocation delay. */
  authCacheTtlMs: number;
  /** Longest lifetime a user app token may have (ms), or null for no limit. */
  tokenMaxLifetimeMs: number | null;
  /** `last_used_at` is written at most this often per token (ms). */
  lastUsedWriteIntervalMs: number;
}

export interface IdentityDeps {
  db: Kysely<Database>;
  /** In-process cache for authentication results. */
  authCache: Cache;
  logger: Logger;
  config: IdentityConfig;
  now: () => number;
}

export const defaultIdentityConfig: IdentityConfig = {
  authCacheTtlMs: 1000,
  tokenMaxLifetimeMs: null,
  lastUsedWriteIntervalMs: 60_000,
};
