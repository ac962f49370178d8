/**
 * Test helpers: raw Redis commands for tests that must look at what services stored (the
 * `Cache` interface deliberately cannot list keys). Used by service and end-to-end tests.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { type Cache, createMemoryCache, createRedisCache } from './index.js';

/** A decoded RESP2 reply. */
export type Reply = string | number | null | Error | Reply[];

/**
 * Sends `commands` to the Redis at `url` over one ioredis connection and resolves their replies in
 * order (a command Redis refuses resolves as its `Error`).
 * @throws {Error} when Redis cannot be reached within 2 s.
 */
export async function redisCommands(url: string, commands: string[][]): Promise<Reply[]> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {
    /* surfaced by connect() or the command */
  });
  try {
    await client.connect();
    const replies: Reply[] = [];
    for (const [command, ...args] of commands) {
      replies.push((await client.call(command as string, ...args).catch((error: Error) => error)) as Reply);
    }
    return replies;
  } finally {
    client.disconnect();
  }
}

/** `true` when Redis at `url` answers PING. */
export const redisAnswers = (url: string): Promise<boolean> =>
  redisCommands(url, [['PING']]).then(
    (r) => r[0] === 'PONG',
    () => false,
  );

/**
 * Every key under `prefix` with its type and value (strings as they are; other types as their
 * members, so nothing escapes a scan).
 */
export async function redisDump(
  url: string,
  prefix: string,
): Promise<Array<{ key: string; type: string; value: Reply }>> {
  const [keys] = (await redisCommands(url, [['KEYS', `${prefix}*`]])) as [string[]];
  const out: Array<{ key: string; type: string; value: Reply }> = [];
  for (const key of keys) {
    const [type] = (await redisCommands(url, [['TYPE', key]])) as [string];
    const read: Record<string, string[]> = {
      string: ['GET', key],
      hash: ['HGETALL', key],
      list: ['LRANGE', key, '0', '-1'],
      set: ['SMEMBERS', key],
      zset: ['ZRANGE', key, '0', '-1', 'WITHSCORES'],
    };
    const command = read[type] ?? ['DUMP', key];
    const [value] = await redisCommands(url, [command]);
    out.push({ key, type, value: value ?? null });
  }
  return out;
}

/** Deletes every key under `prefix`. */
export async function redisDeletePrefix(url: string, prefix: string): Promise<void> {
  const [keys] = (await redisCommands(url, [['KEYS', `${prefix}*`]])) as [string[]];
  if (keys.length > 0) await redisCommands(url, [['DEL', ...keys]]);
}

/** Which cache implementation a test runs on. */
export type CacheKind = 'memory' | 'redis';

/** The Redis used by tests: `REDIS_URL`, default `redis://127.0.0.1:6379`. */
export const redisTestUrl = (): string => process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let redisReachable: boolean | undefined;

/**
 * The caches tests must run on: `['memory']`, plus `'redis'` when it answers or when
 * `RUNBOOK_REQUIRE_REDIS=1` (then an unreachable Redis fails the tests instead of skipping them).
 */
export async function testCaches(): Promise<CacheKind[]> {
  if (process.env.RUNBOOK_REQUIRE_REDIS === '1') return ['memory', 'redis'];
  redisReachable ??= await redisAnswers(redisTestUrl());
  return redisReachable ? ['memory', 'redis'] : ['memory'];
}

/** A unique key prefix for one test run (`rbtest:<12 hex>:`). */
export const uniquePrefix = () => `rbtest:${randomBytes(6).toString('hex')}:`;

/**
 * A cache of `kind` under `prefix`. A Redis cache is returned once connected.
 * @throws {Error} when Redis does not connect within 3 s.
 */
export async function createTestCache(kind: CacheKind, prefix: string, url = redisTestUrl()): Promise<Cache> {
  if (kind === 'memory') return createMemoryCache({ prefix });
  const cache = createRedisCache(url, { prefix, commandTimeoutMs: 2000 });
  for (let i = 0; i < 60; i++) {
    if (await cache.ping()) return cache;
    await new Promise((r) => setTimeout(r, 50));
  }
  await cache.close();
  throw new Error(
    `Redis at ${url} is not reachable (required: RUNBOOK_REQUIRE_REDIS=${process.env.RUNBOOK_REQUIRE_REDIS ?? ''})`,
  );
}
