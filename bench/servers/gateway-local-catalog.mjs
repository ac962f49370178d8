/**
 * For the hop benchmark only: the real gateway with catalog's real router in the same process,
 * called through tRPC's `localLink` instead of the service link over HTTP — the same request
 * path as the platform's `GET /core/runbooks` minus exactly one service hop (tRPC client → catalog
 * over loopback HTTP). Catalog's dependencies are built as apps/catalog/src/index.ts builds them
 * (same database, same cached authenticator asking the platform's identity with catalog's service
 * credential); its job worker is not started. The gateway's are built as apps/gateway/src/index.ts
 * builds them (same rate limiter, Redis when REDIS_URL is set). Never part of the product: it lives
 * in bench/ and imports the apps' build output by path.
 *
 * Env: PORT, PUBLIC_URL, IDENTITY_URL, SECRETS_URL, SERVICE_CREDENTIAL (catalog's), CATALOG_DB
 * (SQLite file) or CATALOG_MYSQL_URL, REDIS_URL (optional), REDIS_PREFIX, RATE_LIMIT_REDIS_PREFIX.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { join, resolve } from 'node:path';
import { createCache, createRedisClient } from '@runbook/cache';
import { createDb } from '@runbook/db';
import { createCachedAuthenticator, createIdentityClient } from '@runbook/identity/client';
import { createSecretsClient } from '@runbook/secrets/client';
import { createTRPCClient, localLink } from '@trpc/client';
import { observable } from '@trpc/server/observable';

const apps = resolve(import.meta.dirname, '../../apps');
const [
  { createServer: createGateway },
  { catalogRouter },
  { createContextInner },
  { defaultOrchestrationConfig },
  { createSecretsTemplateService },
  { createIdentityDirectory },
  { createLogger },
] = await Promise.all([
  import(join(apps, 'gateway/dist/server.js')),
  import(join(apps, 'catalog/dist/router.js')),
  import(join(apps, 'catalog/dist/trpc.js')),
  import(join(apps, 'catalog/dist/deps.js')),
  import(join(apps, 'catalog/dist/secrets-port.js')),
  import(join(apps, 'catalog/dist/directory-port.js')),
  import(join(resolve(import.meta.dirname, '../../packages/rpc/dist'), 'index.js')),
]);

const env = process.env;
const redisPrefix = env.REDIS_PREFIX ?? 'runbook:';
const logger = createLogger('gateway-local-catalog', 'warn');
const identityForCatalog = createIdentityClient(env.IDENTITY_URL, env.SERVICE_CREDENTIAL);
const catalogDeps = {
  db: createDb(
    env.CATALOG_MYSQL_URL
      ? { dialect: 'mysql', url: env.CATALOG_MYSQL_URL }
      : { dialect: 'sqlite', file: env.CATALOG_DB },
  ),
  authenticate: createCachedAuthenticator(
    identityForCatalog,
    createCache(env.REDIS_URL, { prefix: `${redisPrefix}auth:` }),
  ),
  directory: createIdentityDirectory(identityForCatalog),
  logger,
  now: Date.now,
  secrets: createSecretsTemplateService(createSecretsClient(env.SECRETS_URL, env.SERVICE_CREDENTIAL)),
  fetch: globalThis.fetch,
  orchestration: defaultOrchestrationConfig,
  jobsQueued: () => {},
};

// localLink's createContext takes no arguments: the caller's forwarded credential (the service
// link's `context.credential`) reaches it through AsyncLocalStorage set by the link in front.
const callCredential = new AsyncLocalStorage();
const credentialLink =
  () =>
  ({ op, next }) =>
    observable((observer) => callCredential.run(op.context.credential ?? null, () => next(op).subscribe(observer)));
const catalog = createTRPCClient({
  links: [
    credentialLink,
    localLink({
      router: catalogRouter,
      createContext: async () => createContextInner(catalogDeps, callCredential.getStore() ?? null),
    }),
  ],
});

const server = await createGateway({
  identity: createIdentityClient(env.IDENTITY_URL, ''),
  catalog,
  secrets: createSecretsClient(env.SECRETS_URL, ''),
  publicUrl: env.PUBLIC_URL,
  logger,
  rateLimit: {
    perTokenPerMinute: 1_000_000_000,
    perIpPerMinute: 1_000_000_000,
    redis: env.REDIS_URL ? createRedisClient(env.REDIS_URL) : undefined,
    redisPrefix: env.RATE_LIMIT_REDIS_PREFIX ?? `${redisPrefix}gateway:rate-limit:`,
  },
});
await server.start({ port: Number(env.PORT), host: '127.0.0.1' });
process.send?.('ready');
process.on('SIGTERM', async () => {
  await server.stop();
  await catalogDeps.db.destroy();
  process.exit(0);
});
