/**
 * Test dependencies for the secrets service: a fresh migrated database per dialect (queries
 * counted), a memory or Redis cache with a unique key prefix, a random keyring, and a FAKE
 * authenticator mapping fixed credentials to principals (no identity process needed).
 *
 * Redis is used at `REDIS_URL` (default `redis://127.0.0.1:6379`) when it answers, and is required
 * (tests fail instead of skipping) when `RUNBOOK_REQUIRE_REDIS=1`.
 */
import { randomBytes } from 'node:crypto';
import type { Cache } from '@runbook/cache';
import {
  type CacheKind,
  createTestCache,
  redisCommands,
  redisTestUrl,
  testCaches,
  uniquePrefix,
} from '@runbook/cache/testing';
import { AppError, type Principal, unauthorized } from '@runbook/contracts';
import type { Dialect } from '@runbook/db';
import { createTestDatabase } from '@runbook/db/testing';
import { createLogger } from '@runbook/rpc';
import { TRPCError } from '@trpc/server';
import type { Keyring } from './crypto/encryption.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { defaultSecretsConfig, type SecretsDeps } from './deps.js';
import { secretsRouter } from './router.js';
import { createCallerFactory, createContextInner } from './trpc.js';

/** Credentials the fake authenticator knows. */
export const CREDENTIALS = {
  /** user 1: developer + integrations_admin */
  admin: 'test-admin-token',
  /** user 2: developer */
  developer: 'test-developer-token',
  /** user 3: no role at all */
  plain: 'test-plain-token',
  /** the catalog service */
  service: 'test-catalog-credential',
} as const;

const principals: Record<string, Principal> = {
  [CREDENTIALS.admin]: {
    kind: 'user',
    user_id: '1',
    token_id: '11',
    roles: [
      { role: 'developer', workspace_id: null },
      { role: 'integrations_admin', workspace_id: null },
    ],
  },
  [CREDENTIALS.developer]: {
    kind: 'user',
    user_id: '2',
    token_id: '12',
    roles: [{ role: 'developer', workspace_id: null }],
  },
  [CREDENTIALS.plain]: { kind: 'user', user_id: '3', token_id: '13', roles: [] },
  [CREDENTIALS.service]: { kind: 'service', service: 'catalog' },
};

/** Fake `authenticate`: the principals above, 401 for anything else. */
export async function fakeAuthenticate(credential: string): Promise<Principal> {
  const principal = principals[credential];
  if (!principal) throw unauthorized('The bearer token is not valid.');
  return principal;
}

/**
 * The AppError a call failed with (tRPC wraps it as the TRPCError's cause).
 * @throws {Error} when the call succeeds or fails with anything else.
 */
export async function appError(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCError && error.cause instanceof AppError) return error.cause;
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** A keyring of fresh random keys; the last id is active. */
export function testKeyring(ids: string[] = ['k1']): Keyring {
  return { activeKeyId: ids[ids.length - 1] as string, keys: new Map(ids.map((id) => [id, randomBytes(32)])) };
}

// ── Redis ────────────────────────────────────────────────────────────────────────────────────

// The cache kinds and test caches live in @runbook/cache/testing; re-exported for the secrets tests.
export { type CacheKind, createTestCache, redisTestUrl, testCaches, uniquePrefix };

/** Every `[key, value]` stored in Redis under `prefix`. */
export async function redisEntries(prefix: string): Promise<Array<[string, string | null]>> {
  const [keys] = (await redisCommands(redisTestUrl(), [['KEYS', `${prefix}*`]])) as [string[]];
  if (keys.length === 0) return [];
  const [values] = (await redisCommands(redisTestUrl(), [['MGET', ...keys]])) as [Array<string | null>];
  return keys.map((k, i) => [k, values[i] ?? null]);
}

// ── Test kit ─────────────────────────────────────────────────────────────────────────────────

const createCaller = createCallerFactory(secretsRouter);
export type SecretsCaller = ReturnType<typeof createCaller>;
/** A caller of the secrets router over `deps`, presenting `credential`. */
export const callerFor = (deps: SecretsDeps, credential: string | null): SecretsCaller =>
  createCaller(createContextInner(deps, credential));

/** One "replica": its own deps (and cache client) over the shared database. */
export interface Replica {
  deps: SecretsDeps;
  /** A caller presenting `credential`. */
  caller(credential: string | null): SecretsCaller;
}

/** A test database + cache + deps, with query counting and replicas. */
export interface SecretsTestKit extends Replica {
  dialect: Dialect;
  cacheKind: CacheKind;
  /** Key prefix of this kit's cache. */
  prefix: string;
  /** Database queries run since the kit was created (or `queries.count` was reset). */
  queries: { count: number; sql: string[] };
  /** Another replica sharing this kit's database and cache (a second Redis connection; the same memory cache). */
  replica(): Promise<Replica>;
  destroy(): Promise<void>;
}

/** Builds a kit on `dialect` with a `cacheKind` cache, unique prefix and random keyring. */
export async function createSecretsTestKit(
  dialect: Dialect,
  options: { cache?: CacheKind; keyring?: Keyring; maxParameters?: number } = {},
): Promise<SecretsTestKit> {
  const queries = { count: 0, sql: [] as string[] };
  const testDb = await createTestDatabase<Database>(dialect, migrations, {
    onQuery: (e) => {
      queries.count++;
      queries.sql.push(e.sql);
    },
  });
  queries.count = 0;
  queries.sql = [];
  const cacheKind = options.cache ?? 'memory';
  const prefix = uniquePrefix();
  const caches: Cache[] = [await createTestCache(cacheKind, prefix)];
  const keyring = options.keyring ?? testKeyring();
  const makeReplica = (cache: Cache): Replica => {
    const deps: SecretsDeps = {
      db: testDb.db,
      cache,
      keyring,
      authenticate: fakeAuthenticate,
      logger: createLogger('secrets-test', 'silent'),
      now: Date.now,
      config: { ...defaultSecretsConfig, ...(options.maxParameters ? { maxParameters: options.maxParameters } : {}) },
    };
    return { deps, caller: (credential) => callerFor(deps, credential) };
  };
  const main = makeReplica(caches[0] as Cache);
  return {
    ...main,
    dialect,
    cacheKind,
    prefix,
    queries,
    async replica() {
      if (cacheKind === 'memory') return makeReplica(caches[0] as Cache);
      const cache = await createTestCache('redis', prefix);
      caches.push(cache);
      return makeReplica(cache);
    },
    async destroy() {
      if (cacheKind === 'redis') {
        const keys = (await redisEntries(prefix)).map(([k]) => k);
        if (keys.length > 0) await redisCommands(redisTestUrl(), [['DEL', ...keys]]);
      }
      await Promise.all(caches.map((c) => c.close()));
      await testDb.destroy();
    },
  };
}

export { redisCommands };
