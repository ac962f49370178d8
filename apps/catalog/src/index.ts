/** Catalog entry point: parse env, migrate, build dependencies, serve, run the job worker. */
import { hostname } from 'node:os';
import { createCache } from '@runbook/cache';
import { parseEnv, redisKeySpaces } from '@runbook/config';
import { createDb, databaseConfigFromEnv, migrateToLatest } from '@runbook/db';
import { createCachedAuthenticator, createIdentityClient } from '@runbook/identity/client';
import { createLogger, stopOnSignals } from '@runbook/rpc';
import { createSecretsClient } from '@runbook/secrets/client';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { type CatalogDeps, defaultOrchestrationConfig } from './deps.js';
import { createIdentityDirectory } from './directory-port.js';
import { catalogEnvSchema } from './env.js';
import { createJobWorker } from './orchestration/job-worker.js';
import { createSecretsTemplateService, unavailableTemplateService } from './secrets-port.js';
import { createServer } from './server.js';

const env = parseEnv(catalogEnvSchema);
const logger = createLogger('catalog', env.LOG_LEVEL);
const db = createDb<Database>(databaseConfigFromEnv('catalog', env));
await migrateToLatest(db, migrations);

const identity = createIdentityClient(env.IDENTITY_URL, env.SERVICE_CREDENTIAL);
let wakeWorker = () => {};
const deps: CatalogDeps = {
  db,
  // Principals are reused for AUTH_CACHE_TTL_MS (1 s), so a revoked token stops working here within it;
  // with REDIS_URL they are shared by every replica and service (same key space as secrets').
  authenticate: createCachedAuthenticator(
    identity,
    createCache(env.REDIS_URL, { prefix: redisKeySpaces(env.REDIS_PREFIX).auth }),
    env.AUTH_CACHE_TTL_MS,
  ),
  directory: createIdentityDirectory(identity),
  logger,
  now: Date.now,
  secrets: env.SECRETS_URL
    ? createSecretsTemplateService(createSecretsClient(env.SECRETS_URL, env.SERVICE_CREDENTIAL))
    : unavailableTemplateService,
  fetch: globalThis.fetch,
  orchestration: {
    workerId: `${hostname()}:${process.pid}`,
    leaseMs: env.CATALOG_JOB_LEASE_MS,
    pollMs: env.CATALOG_WORKER_POLL_MS,
    concurrency: env.CATALOG_WORKER_CONCURRENCY,
    retryBaseMs: env.CATALOG_RETRY_BASE_MS,
    retryMaxDelayMs: env.CATALOG_RETRY_MAX_DELAY_MS,
    maxAttempts: env.CATALOG_RETRY_MAX_ATTEMPTS,
    cascadeBudget: env.CATALOG_CASCADE_BUDGET,
    jobRetentionMs: env.CATALOG_JOB_RETENTION_HOURS * 3_600_000,
    jobPurgeEveryMs: defaultOrchestrationConfig.jobPurgeEveryMs,
  },
  jobsQueued: () => wakeWorker(),
};

const worker = createJobWorker(deps);
wakeWorker = worker.wake;
// The worker stops claiming and finishes the jobs in hand before the database closes.
const server = await createServer(deps, { beforeClose: () => worker.stop() });
const url = await server.start({ port: env.PORT, host: env.HOST });
worker.start();
logger.info({ url, worker: deps.orchestration.workerId }, 'catalog listening');
stopOnSignals(server, logger);
