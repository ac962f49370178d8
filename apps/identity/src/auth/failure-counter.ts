/**
 * Counts authentication failures per key (the SHA-256 of the presented credential) in fixed windows,
 * to record repeated failures in the audit trail once per window instead of once per request, so a
 * client hammering with a revoked token costs one audit row a minute.
 *
 * Counting is `rate-limiter-flexible`'s (as for sign-ins): in Redis when a Redis URL is given, so
 * the threshold is reached — and recorded — once per window for the whole platform, not once per
 * identity replica; an in-process counter is its insurance while Redis is unreachable, and the
 * only counter without Redis (the embedded default runs one identity process).
 */
import type { RedisClient } from '@runbook/cache';
import { createCounterStore } from './counter-store.js';

/** See {@link createFailureCounter}. */
export interface FailureCounter {
  /**
   * Counts one failure of `key`.
   * @returns the failure count when it has just reached the threshold in the current window (once
   *   per window, on whichever replica counted it), else `null`.
   */
  hit(key: string): Promise<number | null>;
  /** Whether the shared counter answers: Redis `PING` (false until connected), always true in memory. */
  ping(): Promise<boolean>;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

/** Options of {@link createFailureCounter}. */
export interface FailureCounterOptions {
  /** Failures within one window that make {@link FailureCounter.hit} report (once per window). */
  threshold: number;
  /** Window length in whole seconds, starting at a key's first failure. */
  windowSeconds: number;
  /** Redis URL shared by every identity replica; without it, failures are counted in this process. */
  redisUrl?: string | undefined;
  /** A Redis client to count in instead of one for `redisUrl` (shared by identity's counters). */
  redis?: RedisClient | undefined;
  /** Redis key prefix, e.g. `runbook:identity:auth-failures:` (default `auth-failures:`). */
  keyPrefix?: string;
}

/** @throws {Error} only from `hit` if the in-process counter itself fails (Redis failures fall back to it). */
export function createFailureCounter(options: FailureCounterOptions): FailureCounter {
  // `points` only matters to `consume`; failures are counted with `penalty`.
  const store = createCounterStore({
    points: options.threshold,
    windowSeconds: options.windowSeconds,
    redisUrl: options.redisUrl,
    redis: options.redis,
    keyPrefix: options.keyPrefix ?? 'auth-failures:',
  });
  return {
    async hit(key) {
      const { consumedPoints } = await store.counter.penalty(key, 1);
      return consumedPoints === options.threshold ? consumedPoints : null;
    },
    ping: store.ping,
    close: store.close,
  };
}
