/** Catalog entry point: parse env, migrate, build dependencies, serve. */
import { createMemoryCache } from '@runbook/cache';
import { parseEnv } from '@runbook/config';
import { createDb, databaseConfigFromEnv, migrateToLatest } from '@runbook/db';
import { createCachedAuthenticator, createIdentityClient } from '@runbook/identity/client';
import { createLogger, stopOnSignals } from '@runbook/rpc';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import type { CatalogDeps } from './deps.js';
import { catalogEnvSchema } from './env.js';
import { createServer } from './server.js';

const env = parseEnv(catalogEnvSchema);
const logger = createLogger('catalog', env.LOG_LEVEL);
const db = createDb<Database>(databaseConfigFromEnv('catalog', env));
await migrateToLatest(db, migrations);

const deps: CatalogDeps = {
  db,
  // Principals are reused for identity's documented bound (1 s), so a revoked token stops working here within it.
  authenticate: createCachedAuthenticator(
    createIdentityClient(env.IDENTITY_URL, env.SERVICE_CREDENTIAL),
    createMemoryCache({ prefix: 'catalog-auth:' }),
  ),
  logger,
  now: Date.now,
};

const server = await createServer(deps);
const url = await server.start({ port: env.PORT, host: env.HOST });
logger.info({ url }, 'catalog listening');
stopOnSignals(server, logger);
