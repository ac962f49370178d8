/**
 * The store behind identity's fixed-window counters (sign-in attempts, authentication failures):
 * `rate-limiter-flexible` in Redis when a Redis URL is given — shared by every identity replica —
 * with an in-process counter as its insurance while Redis is unreachable (rejectIfRedisNotReady:
 * commands go to memory at once instead of waiting), or that in-process counter alone.
 */
import { createRedisClient, type RedisClient } from '@runbook/cache';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

/** Options of {@link createCounterStore}. */
export interface CounterStoreOptions {
  /** What `consume` allows per window. */
  points: number;
  /** Window length in whole seconds, from a key's first count. */
  windowSeconds: number;
  /** Redis URL shared by every identity replica; without it (and `redis`), counts stay in this process. */
  redisUrl?: string | undefined;
  /**
   * A Redis client to count in instead of one of its own for `redisUrl`, so that several counters
   * of a process share one connection (identity's sign-in limiter and failure counter do).
   */
  redis?: RedisClient | undefined;
  /** Redis key prefix, with or without its trailing `:`. */
  keyPrefix: string;
}

/** A counter store and its connection. */
export interface CounterStore {
  counter: RateLimiterMemory | RateLimiterRedis;
  /** Whether the shared store answers: Redis `PING` (false until connected), always true in memory. */
  ping(): Promise<boolean>;
  /** Closes the Redis connection, if any (a shared client: for every counter using it, at shutdown). */
  close(): Promise<void>;
}

export function createCounterStore(options: CounterStoreOptions): CounterStore {
  // rate-limiter-flexible joins its prefix and the key with ':'.
  const common = {
    points: options.points,
    duration: options.windowSeconds,
    keyPrefix: options.keyPrefix.replace(/:$/, ''),
  };
  const redis = options.redis ?? (options.redisUrl ? createRedisClient(options.redisUrl) : undefined);
  const memory = new RateLimiterMemory(common);
  return {
    counter: redis
      ? new RateLimiterRedis({ ...common, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: memory })
      : memory,
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
