/**
 * One cache interface with two implementations: Redis (ioredis) for production and an in-process
 * LRU for the embedded default. Redis failures never fail a caller: reads become misses, writes and
 * deletes are dropped (and counted), so services degrade to their database. Values are strings; what
 * goes in is the caller's business (never plaintext secrets — see the secrets service).
 */
import { EventEmitter } from 'node:events';
import { Redis, type RedisOptions } from 'ioredis';
import { LRUCache } from 'lru-cache';

/** Counters a test can read to prove how many round trips an operation cost. */
export interface CacheStats {
  /** Commands or pipelines sent (one MGET of N keys counts 1). */
  roundTrips: number;
  /** Operations that failed (Redis down or slow) and were treated as misses / dropped. */
  failures: number;
}

/** The cache every service uses. All keys are namespaced by the implementation's `prefix`. */
export interface Cache {
  readonly kind: 'redis' | 'memory';
  readonly stats: CacheStats;
  /** One value, or `null` on a miss or cache failure. */
  get(key: string): Promise<string | null>;
  /** Values in `keys` order (`null` per miss) in one round trip; all `null` on failure. */
  mget(keys: readonly string[]): Promise<(string | null)[]>;
  /** Stores `value` for `ttlMs` milliseconds. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Stores many entries with one TTL (ms) in one round trip. */
  mset(entries: ReadonlyArray<readonly [string, string]>, ttlMs: number): Promise<void>;
  /** Deletes keys in one round trip. Resolves `false` if the cache could not be reached. */
  del(keys: readonly string[]): Promise<boolean>;
  /** Sends `message` to every subscriber of `channel` (every replica on Redis; this process in memory). */
  publish(channel: string, message: string): Promise<void>;
  /** Calls `handler` for each message on `channel`; resolves an unsubscribe function. */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;
  /** `true` when the cache answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Options shared by both implementations. */
export interface CacheOptions {
  /** Prepended to every key and channel, e.g. `runbook:secrets:`. */
  prefix: string;
  /** Called once per failure with a short reason (never a value). */
  onError?: (reason: string) => void;
}

const failFastOptions = (commandTimeoutMs = 250): RedisOptions => ({
  commandTimeout: commandTimeoutMs,
  connectTimeout: 2000,
  maxRetriesPerRequest: 0,
  enableOfflineQueue: false,
  retryStrategy: (times) => Math.min(50 * 2 ** times, 2000),
  lazyConnect: false,
});

/** The ioredis client {@link createRedisClient} returns, for code that is handed one. */
export type { Redis as RedisClient } from 'ioredis';

/**
 * A plain ioredis client with the fail-fast settings of {@link createRedisCache}: commands time out
 * after `commandTimeoutMs` (default 250 ms) and fail at once while disconnected, and it reconnects in
 * the background. For libraries that need a client of their own (the gateway's rate limiter); errors
 * are left to the caller's commands.
 */
export function createRedisClient(url: string, options: { commandTimeoutMs?: number } = {}): Redis {
  const client = new Redis(url, failFastOptions(options.commandTimeoutMs));
  client.on('error', () => {
    /* reported by the failing commands; ioredis keeps reconnecting */
  });
  return client;
}

/**
 * Redis cache. Commands time out after `commandTimeoutMs` (default 250 ms) and fail at once while
 * disconnected (no offline queue), so a down or slow Redis costs callers at most that long; ioredis
 * reconnects in the background with capped backoff and the cache recovers by itself.
 */
export function createRedisCache(url: string, options: CacheOptions & { commandTimeoutMs?: number }): Cache {
  const redisOptions = failFastOptions(options.commandTimeoutMs);
  const client = new Redis(url, redisOptions);
  let subscriber: Redis | undefined;
  const handlers = new Map<string, Set<(message: string) => void>>();
  const stats: CacheStats = { roundTrips: 0, failures: 0 };
  const p = options.prefix;
  client.on('error', () => {
    /* reported per failed command below; ioredis keeps reconnecting */
  });
  const fail = (op: string, error: unknown) => {
    stats.failures++;
    options.onError?.(`redis ${op} failed: ${error instanceof Error ? error.message : String(error)}`);
  };

  return {
    kind: 'redis',
    stats,
    async get(key) {
      stats.roundTrips++;
      try {
        return await client.get(p + key);
      } catch (error) {
        fail('get', error);
        return null;
      }
    },
    async mget(keys) {
      if (keys.length === 0) return [];
      stats.roundTrips++;
      try {
        return await client.mget(...keys.map((k) => p + k));
      } catch (error) {
        fail('mget', error);
        return keys.map(() => null);
      }
    },
    async set(key, value, ttlMs) {
      stats.roundTrips++;
      try {
        await client.set(p + key, value, 'PX', Math.max(1, Math.round(ttlMs)));
      } catch (error) {
        fail('set', error);
      }
    },
    async mset(entries, ttlMs) {
      if (entries.length === 0) return;
      stats.roundTrips++;
      try {
        const pipeline = client.multi();
        for (const [k, v] of entries) pipeline.set(p + k, v, 'PX', Math.max(1, Math.round(ttlMs)));
        await pipeline.exec();
      } catch (error) {
        fail('mset', error);
      }
    },
    async del(keys) {
      if (keys.length === 0) return true;
      stats.roundTrips++;
      try {
        await client.del(...keys.map((k) => p + k));
        return true;
      } catch (error) {
        fail('del', error);
        return false;
      }
    },
    async publish(channel, message) {
      stats.roundTrips++;
      try {
        await client.publish(p + channel, message);
      } catch (error) {
        fail('publish', error);
      }
    },
    async subscribe(channel, handler) {
      if (!subscriber) {
        subscriber = new Redis(url, { ...redisOptions, enableOfflineQueue: true, commandTimeout: undefined });
        subscriber.on('error', () => {});
        subscriber.on('message', (ch: string, message: string) => {
          for (const h of handlers.get(ch) ?? []) h(message);
        });
      }
      const full = p + channel;
      let set = handlers.get(full);
      if (!set) {
        set = new Set();
        handlers.set(full, set);
        await subscriber.subscribe(full);
      }
      set.add(handler);
      return async () => {
        set.delete(handler);
        if (set.size === 0) {
          handlers.delete(full);
          await subscriber?.unsubscribe(full).catch(() => {});
        }
      };
    },
    async ping() {
      try {
        return (await client.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      client.disconnect();
      subscriber?.disconnect();
    },
  };
}

/** In-process cache (lru-cache) holding at most `maxEntries` (default 50,000) entries. Pub/sub reaches this process only. */
export function createMemoryCache(options: CacheOptions & { maxEntries?: number }): Cache {
  const lru = new LRUCache<string, string>({ max: options.maxEntries ?? 50_000, ttlAutopurge: false });
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  const stats: CacheStats = { roundTrips: 0, failures: 0 };
  const p = options.prefix;
  return {
    kind: 'memory',
    stats,
    async get(key) {
      stats.roundTrips++;
      return lru.get(p + key) ?? null;
    },
    async mget(keys) {
      if (keys.length === 0) return [];
      stats.roundTrips++;
      return keys.map((k) => lru.get(p + k) ?? null);
    },
    async set(key, value, ttlMs) {
      stats.roundTrips++;
      lru.set(p + key, value, { ttl: ttlMs });
    },
    async mset(entries, ttlMs) {
      if (entries.length === 0) return;
      stats.roundTrips++;
      for (const [k, v] of entries) lru.set(p + k, v, { ttl: ttlMs });
    },
    async del(keys) {
      if (keys.length === 0) return true;
      stats.roundTrips++;
      for (const k of keys) lru.delete(p + k);
      return true;
    },
    async publish(channel, message) {
      stats.roundTrips++;
      bus.emit(p + channel, message);
    },
    async subscribe(channel, handler) {
      bus.on(p + channel, handler);
      return async () => {
        bus.off(p + channel, handler);
      };
    },
    async ping() {
      return true;
    },
    async close() {
      lru.clear();
      bus.removeAllListeners();
    },
  };
}

/** Redis when `redisUrl` is set, otherwise in-process. */
export function createCache(redisUrl: string | undefined, options: CacheOptions): Cache {
  return redisUrl ? createRedisCache(redisUrl, options) : createMemoryCache(options);
}
