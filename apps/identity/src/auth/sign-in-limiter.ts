/**
 * Limits sign-in attempts per key (email + client IP) in fixed windows: every attempt is counted
 * *before* its password is checked, a success clears the key, so what remains counted are failures
 * and attempts still running; beyond `max` within the window (which starts at the key's first
 * counted attempt) attempts are refused until it ends, even with the right password. Counting first
 * means a burst of parallel guesses gets `max` password checks, not one per request (checking
 * first and counting the failure afterwards let every request of a burst through while the
 * password hashes ran).
 *
 * Counting is `rate-limiter-flexible`'s ({@link createCounterStore}): in Redis when a Redis URL is
 * given, so every identity replica sees the same attempts (an attacker cannot multiply the
 * allowance by spreading attempts over replicas), with an in-process counter as its insurance while
 * Redis is unreachable; in process memory otherwise (the embedded default runs one identity
 * process). Keys are stored as the SHA-256 of the email and IP, never the email itself.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from '@runbook/cache';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { createCounterStore } from './counter-store.js';

/** See {@link createSignInLimiter}. */
export interface SignInLimiter {
  /**
   * Counts one attempt of `key`.
   * @returns `attempts`: the attempts counted in the key's window, this one included;
   *   `retryAfter`: seconds (≥ 1) until the window ends when this attempt is over the limit (refuse
   *   it without checking the password), else `null`.
   */
  attempt(key: string): Promise<{ attempts: number; retryAfter: number | null }>;
  /** Forgets `key`'s attempts (after a successful sign-in). */
  reset(key: string): Promise<void>;
  /** Whether the shared counter answers: Redis `PING` (false until connected), always true in memory. */
  ping(): Promise<boolean>;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

/** Options of {@link createSignInLimiter}. */
export interface SignInLimiterOptions {
  /** Attempts allowed per window (default 5); a success clears the count. */
  max?: number;
  /** Window length in whole seconds, from the key's first counted attempt (default 60). */
  windowSeconds?: number;
  /** Redis URL shared by every identity replica; without it, attempts are counted in this process. */
  redisUrl?: string | undefined;
  /** A Redis client to count in instead of one for `redisUrl` (shared by identity's counters). */
  redis?: RedisClient | undefined;
  /** Redis key prefix, e.g. `runbook:identity:sign-in:` (default `sign-in:`). */
  keyPrefix?: string;
}

/**
 * @throws {Error} only from `attempt`/`reset` if the in-process counter itself fails (Redis
 *   failures fall back to it).
 */
export function createSignInLimiter(options: SignInLimiterOptions = {}): SignInLimiter {
  const max = options.max ?? 5;
  const store = createCounterStore({
    points: max,
    windowSeconds: options.windowSeconds ?? 60,
    redisUrl: options.redisUrl,
    redis: options.redis,
    keyPrefix: options.keyPrefix ?? 'sign-in:',
  });
  const limiter = store.counter;
  const hashed = (key: string) => createHash('sha256').update(key).digest('base64url');
  return {
    async attempt(key) {
      try {
        const res = await limiter.consume(hashed(key));
        return { attempts: res.consumedPoints, retryAfter: null };
      } catch (refused) {
        // Over the limit: rate-limiter-flexible rejects with the key's state (store errors fall back to memory).
        if (!(refused instanceof RateLimiterRes)) throw refused;
        return { attempts: refused.consumedPoints, retryAfter: Math.max(1, Math.ceil(refused.msBeforeNext / 1000)) };
      }
    },
    async reset(key) {
      await limiter.delete(hashed(key));
    },
    ping: store.ping,
    close: store.close,
  };
}
