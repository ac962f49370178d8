/** Gateway entry point: parse env, build service clients, serve. */
import { createCatalogClient } from '@runbook/catalog/client';
import { parseEnv } from '@runbook/config';
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
  },
  { bodyLimit: env.BODY_LIMIT_BYTES },
);
const url = await server.start({ port: env.PORT, host: env.HOST });
logger.info({ url, public_url: publicUrl }, 'gateway listening');
stopOnSignals(server, logger);
