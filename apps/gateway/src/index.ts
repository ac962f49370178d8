/** Gateway entry point: parse env, build service clients, serve. */
import { createRedisClient } from '@runbook/cache';
import { createCatalogClient } from '@runbook/catalog/client';
import { parseEnv, redisKeySpaces } from '@runbook/config';
import { createIdentityClient } from '@runbook/identity/client';
import { createLogger, stopOnSignals } from '@runbook/rpc';
import { createSecretsClient } from '@runbook/secrets/client';
import { gatewayEnvSchema } from './env.js';
import { createServer } from './server.js';

const env = parseEnv(gatewayEnvSchema);
const logger = createLogger('gateway', env.LOG_LEVEL);
const publicUrl = (env.PUBLIC_URL ?? `http://${env.HOST}:${env.PORT}`).replace(/\/$/, '');
const server = await createServer(
  {
    identity: createIdentityClient(env.IDENTITY_URL, ''),
    catalog: createCatalogClient(env.CATALOG_URL),
    secrets: createSecretsClient(env.SECRETS_URL, ''),
    publicUrl,
    logger,
    rateLimit: {
      perTokenPerMinute: env.RATE_LIMIT_PER_MINUTE,
      perIpPerMinute: env.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
      redis: env.REDIS_URL ? createRedisClient(env.REDIS_URL) : undefined,
      redisPrefix: env.RATE_LIMIT_REDIS_PREFIX ?? redisKeySpaces(env.REDIS_PREFIX).rateLimit,
    },
  },
  { bodyLimit: env.BODY_LIMIT_BYTES, trustProxy: env.TRUST_PROXY },
);
const url = await server.start({ port: env.PORT, host: env.HOST });
logger.info({ url, public_url: publicUrl }, 'gateway listening');
stopOnSignals(server, logger);
