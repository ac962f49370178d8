/**
 * Operator commands of the secrets service, run with the service's environment:
 *
 *   node dist/cli.js rotate-key [--batch-size 100]
 *     Re-encrypts every system parameter value not under SECRETS_ACTIVE_KEY_ID (see
 *     `crypto/rotation.ts` and docs/operations.md for the whole procedure) and prints
 *     `{active_key_id, reencrypted, skipped, remaining}` as one JSON line on stdout. Warnings and
 *     errors go to stderr (never a value). Exit status 0 when nothing remains under an old key,
 *     1 otherwise or on error, 2 for bad usage.
 */
import { parseArgs } from 'node:util';
import { createCache } from '@runbook/cache';
import { parseEnv, redisKeySpaces } from '@runbook/config';
import { createDb, databaseConfigFromEnv, migrateToLatest } from '@runbook/db';
import { createLogger } from '@runbook/rpc';
import { type Keyring, loadKeyring } from './crypto/encryption.js';
import { reencryptAll } from './crypto/rotation.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { defaultSecretsConfig, type SecretsDeps } from './deps.js';
import { secretsCliEnvSchema } from './env.js';

const USAGE = 'usage: node dist/cli.js rotate-key [--batch-size <1-10000>]';

function usage(message?: string): never {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

const OPTIONS = { 'batch-size': { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

function parseCommandLine(): { batchSize: number } {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ options: OPTIONS, allowPositionals: true });
  } catch (error) {
    usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) usage();
  if (positionals.length !== 1 || positionals[0] !== 'rotate-key') {
    usage(positionals.length > 0 ? `unknown command: ${positionals.join(' ')}` : 'missing command');
  }
  const batchSize = Number(values['batch-size'] ?? 100);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    usage('--batch-size must be an integer from 1 to 10000');
  return { batchSize };
}

const { batchSize } = parseCommandLine();
const env = parseEnv(secretsCliEnvSchema);
// stdout carries the JSON result only; the CLI's own messages go to stderr.
const stderr = (message: string) => process.stderr.write(`${message}\n`);
const logger = createLogger('secrets-cli', 'silent');
let keyring: Keyring;
try {
  // Before touching the database: a missing or invalid key configuration changes nothing.
  keyring = await loadKeyring(env, (message) => stderr(`warning: ${message}`));
} catch (error) {
  stderr(`rotate-key failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const db = createDb<Database>(databaseConfigFromEnv('secrets', env));
const cache = createCache(env.REDIS_URL, {
  prefix: env.SECRETS_CACHE_PREFIX ?? redisKeySpaces(env.REDIS_PREFIX).secrets,
});
try {
  await migrateToLatest(db, migrations);
  const deps: SecretsDeps = {
    db,
    cache,
    keyring,
    authenticate: () => Promise.reject(new Error('the CLI serves no requests')),
    logger,
    now: Date.now,
    config: {
      ...defaultSecretsConfig,
      cacheTtlMs: env.SECRETS_CACHE_TTL_MS,
      maxParameters: env.SECRETS_MAX_PARAMETERS,
    },
  };
  const result = await reencryptAll(deps, { batchSize });
  process.stdout.write(`${JSON.stringify({ active_key_id: deps.keyring.activeKeyId, ...result })}\n`);
  process.exitCode = result.remaining === 0 ? 0 : 1;
} catch (error) {
  stderr(`rotate-key failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await db.destroy();
  await cache.close();
}
