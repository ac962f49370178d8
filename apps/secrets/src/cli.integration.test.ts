/**
 * The documented rotation command (docs/operations.md) as an operator runs it: the built
 * `dist/cli.js rotate-key` in its own process, against a database (SQLite file or MySQL) and, when
 * available, the Redis cache a running replica uses.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Cache } from '@runbook/cache';
import { createMemoryCache } from '@runbook/cache';
import { createDb, migrateToLatest } from '@runbook/db';
import { createTestDatabase, testDialects } from '@runbook/db/testing';
import { createLogger } from '@runbook/rpc';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Keyring } from './crypto/encryption.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { defaultSecretsConfig, type SecretsDeps } from './deps.js';
import {
  CREDENTIALS,
  callerFor,
  createTestCache,
  fakeAuthenticate,
  redisCommands,
  redisEntries,
  redisTestUrl,
  testCaches,
  uniquePrefix,
} from './test-support.js';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const caches = await testCaches();
const legs = (await testDialects()).map((dialect) => ({
  dialect,
  cache: dialect === 'mysql' && caches.includes('redis') ? ('redis' as const) : ('memory' as const),
}));

const key = () => randomBytes(32);
const spec = (keys: Array<[string, Buffer]>) => keys.map(([id, k]) => `${id}:${k.toString('base64')}`).join(',');

/** Runs the CLI; resolves its exit code and output (never rejects on a non-zero exit). */
function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe.each(legs)('rotate-key CLI on $dialect with a $cache cache', ({ dialect, cache: cacheKind }) => {
  let dataDir: string;
  let db: Kysely<Database>;
  let location: string;
  let destroyDb: () => Promise<void>;
  let cache: Cache;
  const prefix = uniquePrefix();
  const k1 = key();
  const k2 = key();
  const plaintexts = Array.from({ length: 5 }, (_, i) => `rotate-me-${i}-${randomBytes(6).toString('hex')}`);

  const depsWith = (keyring: Keyring): SecretsDeps => ({
    db,
    cache,
    keyring,
    authenticate: fakeAuthenticate,
    logger: createLogger('secrets-test', 'silent'),
    now: Date.now,
    config: defaultSecretsConfig,
  });
  const resolveAll = (keyring: Keyring) =>
    callerFor(depsWith(keyring), CREDENTIALS.service).resolution.resolve({
      templates: [{ template: plaintexts.map((_, i) => `{{system.rot_${i}}}`).join('|'), context: 'text' }],
    });
  const cliEnv = (keys: string, active?: string): Record<string, string> => ({
    DATA_DIR: dataDir,
    SECRETS_ENCRYPTION_KEYS: keys,
    ...(active ? { SECRETS_ACTIVE_KEY_ID: active } : {}),
    ...(dialect === 'mysql' ? { MYSQL_URL: location } : {}),
    ...(cacheKind === 'redis' ? { REDIS_URL: redisTestUrl(), SECRETS_CACHE_PREFIX: prefix } : {}),
  });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'secrets-cli-'));
    if (dialect === 'sqlite') {
      location = join(dataDir, 'secrets.sqlite');
      db = createDb<Database>({ dialect: 'sqlite', file: location });
      await migrateToLatest(db, migrations);
      destroyDb = () => db.destroy();
    } else {
      const testDb = await createTestDatabase<Database>('mysql', migrations);
      db = testDb.db;
      location = testDb.location;
      destroyDb = testDb.destroy;
    }
    cache = cacheKind === 'redis' ? await createTestCache('redis', prefix) : createMemoryCache({ prefix });
    const admin = callerFor(depsWith({ activeKeyId: 'k1', keys: new Map([['k1', k1]]) }), CREDENTIALS.admin);
    for (const [i, value] of plaintexts.entries())
      await admin.systemParameters.create({ name: `rot_${i}`, value, secret: i % 2 === 0 });
  });

  afterAll(async () => {
    if (cacheKind === 'redis') {
      const keys = (await redisEntries(prefix)).map(([k]) => k);
      if (keys.length > 0) await redisCommands(redisTestUrl(), [['DEL', ...keys]]);
    }
    await cache.close();
    await destroyDb();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('re-encrypts every value under the new active key while the old one still decrypts, then the old key can go', async () => {
    // Phase 1 replica: both keys, k1 still active. The cache holds k1 ciphertexts.
    const both = {
      activeKeyId: 'k2',
      keys: new Map([
        ['k1', k1],
        ['k2', k2],
      ]),
    };
    expect((await resolveAll({ activeKeyId: 'k1', keys: both.keys })).results[0]).toBe(plaintexts.join('|'));

    const run = await runCli(
      ['rotate-key', '--batch-size', '2'],
      cliEnv(
        spec([
          ['k1', k1],
          ['k2', k2],
        ]),
        'k2',
      ),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ active_key_id: 'k2', reencrypted: 5, skipped: 0, remaining: 0 });
    const rows = await db.selectFrom('system_parameters').select(['key_id', 'version']).execute();
    expect(rows.every((r) => r.key_id === 'k2' && Number(r.version) === 1)).toBe(true);

    // Idempotent: nothing left to do.
    const again = await runCli(
      ['rotate-key'],
      cliEnv(
        spec([
          ['k1', k1],
          ['k2', k2],
        ]),
        'k2',
      ),
    );
    expect([again.code, JSON.parse(again.stdout)]).toEqual([
      0,
      { active_key_id: 'k2', reencrypted: 0, skipped: 0, remaining: 0 },
    ]);

    // Phase 4 replica: k2 only. Neither the database nor the shared Redis cache holds a k1
    // ciphertext any more. (An in-process cache is not shared with the CLI: removing a key means a
    // restart, which starts that cache empty — modelled by a fresh one.)
    if (cacheKind === 'memory') {
      await cache.close();
      cache = createMemoryCache({ prefix });
    }
    const k2Only = { activeKeyId: 'k2', keys: new Map([['k2', k2]]) };
    expect((await resolveAll(k2Only)).results[0]).toBe(plaintexts.join('|'));
    for (const output of [run.stdout, run.stderr, again.stdout, again.stderr])
      for (const p of plaintexts) expect(output).not.toContain(p);
  });

  it('exits 1 without changing anything when a stored value is under a key it does not have', async () => {
    const k3 = key();
    const before = await db
      .selectFrom('system_parameters')
      .select(['name', 'value_ciphertext'])
      .orderBy('name')
      .execute();
    const run = await runCli(['rotate-key'], cliEnv(spec([['k3', k3]])));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('rotate-key failed');
    expect(run.stderr).toContain('is not configured');
    for (const p of plaintexts) expect(run.stderr).not.toContain(p);
    expect(
      await db.selectFrom('system_parameters').select(['name', 'value_ciphertext']).orderBy('name').execute(),
    ).toEqual(before);
  });

  it('exits 2 with usage for a bad command line, and refuses to run without keys in production', async () => {
    const { SECRETS_ENCRYPTION_KEYS: _unset, ...noKeys } = cliEnv('');
    const [production, ...usage] = await Promise.all([
      runCli(['rotate-key'], { ...noKeys, NODE_ENV: 'production' }),
      ...[[], ['rotate'], ['rotate-key', '--batch-size', '0'], ['rotate-key', '--nope']].map((args) =>
        runCli(args, cliEnv(spec([['k2', k2]]))),
      ),
    ]);
    for (const run of usage) {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('usage: node dist/cli.js rotate-key');
    }
    expect(production.code).toBe(1);
    expect(production.stderr).toContain('SECRETS_ENCRYPTION_KEYS is required in production');
  });
});
