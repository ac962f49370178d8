/** `createServer(deps)`: the secrets service's HTTP server (tRPC at `/trpc`, `/healthz`, `/readyz`). */
import { ping } from '@runbook/db';
import { createServiceServer, type ServiceServer } from '@runbook/rpc';
import type { SecretsDeps } from './deps.js';
import { secretsRouter } from './router.js';
import { createContext } from './trpc.js';

/**
 * Builds the server; `start({port, host})` listens, `stop()` drains then closes the database and cache.
 * Readiness reports `{database, cache}`.
 */
export function createServer(deps: SecretsDeps): Promise<ServiceServer> {
  return createServiceServer({
    name: 'secrets',
    router: secretsRouter,
    createContext: createContext(deps),
    logger: deps.logger,
    readiness: async () => ({ database: await ping(deps.db) }),
    informational: async () => ({ cache: await deps.cache.ping() }),
    onClose: async () => {
      await deps.db.destroy();
      await deps.cache.close();
    },
  });
}
