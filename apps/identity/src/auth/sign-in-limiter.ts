/**
 * Limits failed sign-ins per key (email + client IP) in fixed windows: after `max` failures within
 * the window (which starts at the key's first failure) further attempts are refused until it ends,
 * even with the right password. A success clears the key's failures.
 *
 * Counting is `rate-limiter-flexible`'s: in Redis when a Redis URL is given, so every identity
 * replica sees the same failures (an attacker cannot multiply the allowance by spreading attempts
 * over replicas), with an in-process counter as its insurance while Redis is unreachable; in
 * process memory otherwise (the embedded default runs one identity process). Keys are stored as
 * the SHA-256 of the email and IP, never the email itself.
 */
import { createHash } from 'node:crypto';
import { createRedisClient } from '@runbook/cache';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

/** See {@link createSignInLimiter}. */
export interface SignInLimiter {
  /** Seconds (≥ 1) until `key` may try again, or `null` when it may try now. */
  retryAfter(key: string): Promise<number | null>;
  /** Counts one failure of `key`; resolves to the failures in its current window. */
  fail(key: string): Promise<number>;
  /** Forgets `key`'s failures (after a successful sign-in). */
  reset(key: string): Promise<void>;
  /** Whether the shared counter answers: Redis `PING` (false until connected), always true in memory. */
  ping(): Promise<boolean>;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

/** Options of {@link createSignInLimiter}. */
export interface SignInLimiterOptions {
  /** Failures allowed per window (default 5). */
  max?: number;
  /** Window length in whole seconds, from the key's first failure (default 60). */
  windowSeconds?: number;
  /** Redis URL shared by every identity replica; without it, failures are counted in this process. */
  redisUrl?: string | undefined;
  /** Redis key prefix, e.g. `runbook:sign-in:` (default `sign-in:`). */
  keyPrefix?: string;
}

/**
 * @throws {Error} only from `fail`/`retryAfter`/`reset` if the in-process counter itself fails
 *   (Redis failures fall back to it).
 */
export function createSignInLimiter(options: SignInLimiterOptions = {}): SignInLimiter {
  const max = options.max ?? 5;
  const duration = options.windowSeconds ?? 60;
  // rate-limiter-flexible joins its prefix and the key with ':'.
  const keyPrefix = (options.keyPrefix ?? 'sign-in:').replace(/:$/, '');
  const redis = options.redisUrl ? createRedisClient(options.redisUrl) : undefined;
  const memory = new RateLimiterMemory({ points: max, duration, keyPrefix });
  const limiter = redis
    ? new RateLimiterRedis({
        storeClient: redis,
        points: max,
        duration,
        keyPrefix,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      })
    : memory;
  const hashed = (key: string) => createHash('sha256').update(key).digest('base64url');
  return {
    async retryAfter(key) {
      const res = await limiter.get(hashed(key));
      if (!res || res.consumedPoints < max) return null;
      return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    },
    async fail(key) {
      return (await limiter.penalty(hashed(key), 1)).consumedPoints;
    },
    async reset(key) {
      await limiter.delete(hashed(key));
    },
    async ping() {
      if (!redis) return true;
      try {
        return (await redis.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      redis?.disconnect();
    },
  };
}
