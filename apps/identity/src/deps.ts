/** Identity's dependencies, built once by `index.ts` (or by tests) and passed down. */
import type { Cache } from '@runbook/cache';
import type { Logger } from '@runbook/rpc';
import type { Kysely } from 'kysely';
import type { FailureCounter } from './auth/failure-counter.js';
import type { SignInLimiter } from './auth/sign-in-limiter.js';
import type { Database } from './db/database.js';

export interface IdentityConfig {
  /** How long a successful authentication may be reused before identity is asked again (ms). Bounds revocation delay. */
  authCacheTtlMs: number;
  /** Longest lifetime a user app token may have (ms), or null for no limit. */
  tokenMaxLifetimeMs: number | null;
  /** `last_used_at` is written at most this often per token (ms). */
  lastUsedWriteIntervalMs: number;
  /** Failures of one credential within `authFailureWindowMs` that are recorded as an `authentication_failures` action log. */
  authFailureThreshold: number;
  /** Window (ms) in which repeated failures of one credential are counted. */
  authFailureWindowMs: number;
  /** Lifetime of a web UI session (ms). */
  webSessionTtlMs: number;
}

export interface IdentityDeps {
  db: Kysely<Database>;
  /** Cache of authentication results (Redis when configured, so revocation clears every replica's entry). */
  authCache: Cache;
  /** Counts authentication failures per credential (see `config.authFailureThreshold`). */
  authFailures: FailureCounter;
  /** Limits failed web sign-ins per email + client IP. */
  signInLimiter: SignInLimiter;
  logger: Logger;
  config: IdentityConfig;
  now: () => number;
}

export const defaultIdentityConfig: IdentityConfig = {
  authCacheTtlMs: 1000,
  tokenMaxLifetimeMs: null,
  lastUsedWriteIntervalMs: 60_000,
  authFailureThreshold: 5,
  authFailureWindowMs: 60_000,
  webSessionTtlMs: 12 * 3_600_000,
};
