/** Identity entry point: parse env, build dependencies, migrate, bootstrap, serve. */
import { join } from 'node:path';
import { createCache, createRedisClient } from '@runbook/cache';
import { parseEnv, redisKeySpaces } from '@runbook/config';
import { createDb, databaseConfigFromEnv, migrateToLatest } from '@runbook/db';
import { createLogger, stopOnSignals } from '@runbook/rpc';
import { createFailureCounter } from './auth/failure-counter.js';
import { createSignInLimiter } from './auth/sign-in-limiter.js';
import { bootstrapAdmin, bootstrapServiceCredentials } from './bootstrap.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { defaultIdentityConfig, type IdentityDeps } from './deps.js';
import { identityEnvSchema } from './env.js';
import { createServer } from './server.js';

const env = parseEnv(identityEnvSchema);
const logger = createLogger('identity', env.LOG_LEVEL);
const db = createDb<Database>(databaseConfigFromEnv('identity', env));
await migrateToLatest(db, migrations);

const config = {
  ...defaultIdentityConfig,
  authCacheTtlMs: env.AUTH_CACHE_TTL_MS,
  tokenMaxLifetimeMs: env.TOKEN_MAX_LIFETIME_DAYS ? env.TOKEN_MAX_LIFETIME_DAYS * 86_400_000 : null,
  authFailureThreshold: env.AUTH_FAILURE_THRESHOLD,
  authFailureWindowMs: env.AUTH_FAILURE_WINDOW_SECONDS * 1000,
  webSessionTtlMs: env.WEB_SESSION_TTL_HOURS * 3_600_000,
};
let lastCacheWarning = 0;
// One connection for both counters (sign-in attempts, authentication failures); the auth cache has its own.
const counterRedis = env.REDIS_URL ? createRedisClient(env.REDIS_URL) : undefined;
const deps: IdentityDeps = {
  db,
  // Redis when REDIS_URL is set: a revocation on one replica then clears the entry every replica reads.
  authCache: createCache(env.REDIS_URL, {
    prefix: redisKeySpaces(env.REDIS_PREFIX).identity,
    onError: (reason) => {
      if (Date.now() - lastCacheWarning < 10_000) return;
      lastCacheWarning = Date.now();
      logger.warn({ reason }, 'auth cache unavailable; authenticating from the database');
    },
  }),
  // Redis when REDIS_URL is set: repeated failures are recorded once per window for the platform.
  authFailures: createFailureCounter({
    threshold: config.authFailureThreshold,
    windowSeconds: env.AUTH_FAILURE_WINDOW_SECONDS,
    redis: counterRedis,
    keyPrefix: redisKeySpaces(env.REDIS_PREFIX).authFailures,
  }),
  // Redis when REDIS_URL is set: every replica counts the same failures.
  signInLimiter: createSignInLimiter({
    max: env.SIGN_IN_MAX_FAILURES,
    windowSeconds: 60,
    redis: counterRedis,
    keyPrefix: redisKeySpaces(env.REDIS_PREFIX).signIn,
  }),
  logger,
  now: Date.now,
  config,
};

if (env.BOOTSTRAP_SERVICE_CREDENTIALS) {
  const names = env.BOOTSTRAP_SERVICE_CREDENTIALS.split(',').filter(Boolean);
  await bootstrapServiceCredentials(deps, names, join(env.DATA_DIR, 'credentials'));
}
if (env.BOOTSTRAP_ADMIN === '1') {
  const token = await bootstrapAdmin(
    deps,
    env.BOOTSTRAP_ADMIN_EMAIL,
    join(env.DATA_DIR, 'admin-token'),
    join(env.DATA_DIR, 'admin-password'),
  );
  if (token)
    logger.info(
      {
        email: env.BOOTSTRAP_ADMIN_EMAIL,
        token_file: join(env.DATA_DIR, 'admin-token'),
        password_file: join(env.DATA_DIR, 'admin-password'),
      },
      'created the admin user',
    );
}

const server = await createServer(deps);
const url = await server.start({ port: env.PORT, host: env.HOST });
logger.info({ url }, 'identity listening');
stopOnSignals(server, logger);
