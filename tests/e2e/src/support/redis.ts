/**
 * A few raw Redis commands over one connection (RESP2), for end-to-end tests that must look at what
 * the services stored — the services' cache interface deliberately cannot list keys.
 */
import { createConnection } from 'node:net';

/** A decoded RESP2 reply. */
export type Reply = string | number | null | Error | Reply[];

function parseReply(buf: Buffer, pos: number): { value: Reply; end: number } | null {
  const lineEnd = buf.indexOf('\r\n', pos);
  if (lineEnd < 0) return null;
  const line = buf.toString('utf8', pos + 1, lineEnd);
  const next = lineEnd + 2;
  switch (String.fromCharCode(buf[pos] as number)) {
    case '+':
      return { value: line, end: next };
    case '-':
      return { value: new Error(line), end: next };
    case ':':
      return { value: Number(line), end: next };
    case '$': {
      const n = Number(line);
      if (n < 0) return { value: null, end: next };
      if (buf.length < next + n + 2) return null;
      return { value: buf.toString('utf8', next, next + n), end: next + n + 2 };
    }
    case '*': {
      const n = Number(line);
      if (n < 0) return { value: null, end: next };
      const items: Reply[] = [];
      let p = next;
      for (let i = 0; i < n; i++) {
        const item = parseReply(buf, p);
        if (!item) return null;
        items.push(item.value);
        p = item.end;
      }
      return { value: items, end: p };
    }
    default:
      throw new Error('unexpected Redis reply');
  }
}

/**
 * Sends `commands` to the Redis at `url` and resolves their replies in order.
 * @throws {Error} when Redis does not answer within 2 s.
 */
export function redisCommands(url: string, commands: string[][]): Promise<Reply[]> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(2000, () => socket.destroy(new Error(`Redis at ${url} did not answer`)));
    socket.on('error', reject);
    let buffer = Buffer.alloc(0);
    const replies: Reply[] = [];
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (let r = parseReply(buffer, 0); r; r = parseReply(buffer, 0)) {
        replies.push(r.value);
        buffer = buffer.subarray(r.end);
      }
      if (replies.length === commands.length) {
        socket.end();
        resolve(replies);
      }
    });
    socket.write(
      commands
        .map((args) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`)
        .join(''),
    );
  });
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
