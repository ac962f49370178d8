/** Secrets service entry point: parse env, migrate (under Kysely's lock), build dependencies, serve. */
import { createCache } from '@runbook/cache';
import { parseEnv, redisKeySpaces } from '@runbook/config';
import { createDb, databaseConfigFromEnv, migrateToLatest } from '@runbook/db';
import { createCachedAuthenticator, createIdentityClient } from '@runbook/identity/client';
import { createLogger, stopOnSignals } from '@runbook/rpc';
import { loadKeyring } from './crypto/encryption.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import type { SecretsDeps } from './deps.js';
import { secretsEnvSchema } from './env.js';
import { createServer } from './server.js';

const env = parseEnv(secretsEnvSchema);
const logger = createLogger('secrets', env.LOG_LEVEL);
const db = createDb<Database>(databaseConfigFromEnv('secrets', env));
await migrateToLatest(db, migrations);

let lastCacheWarning = 0;
const deps: SecretsDeps = {
  db,
  cache: createCache(env.REDIS_URL, {
    prefix: env.SECRETS_CACHE_PREFIX ?? redisKeySpaces(env.REDIS_PREFIX).secrets,
    // At most one warning per 10 s while Redis is down; requests fall back to the database meanwhile.
    onError: (reason) => {
      if (Date.now() - lastCacheWarning < 10_000) return;
      lastCacheWarning = Date.now();
      logger.warn({ reason }, 'cache unavailable; reading system parameters from the database');
    },
  }),
  keyring: await loadKeyring(env, (message) => logger.warn(message)),
  authenticate: createCachedAuthenticator(
    createIdentityClient(env.IDENTITY_URL, env.SERVICE_CREDENTIAL),
    // Shared by every replica and service when REDIS_URL is set (same key space as catalog's).
    createCache(env.REDIS_URL, { prefix: redisKeySpaces(env.REDIS_PREFIX).auth }),
    env.AUTH_CACHE_TTL_MS,
  ),
  logger,
  now: Date.now,
  config: { maxParameters: env.SECRETS_MAX_PARAMETERS, cacheTtlMs: env.SECRETS_CACHE_TTL_MS },
};

const server = await createServer(deps);
const url = await server.start({ port: env.PORT, host: env.HOST });
logger.info({ url, cache: deps.cache.kind, active_key_id: deps.keyring.activeKeyId }, 'secrets listening');
stopOnSignals(server, logger);
