/**
 * Test helpers: raw Redis commands for tests that must look at what services stored (the
 * `Cache` interface deliberately cannot list keys). Used by service and end-to-end tests.
 */
import { Redis } from 'ioredis';

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
