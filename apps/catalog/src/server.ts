/** `createServer(deps)`: catalog's HTTP server (tRPC at `/trpc`, `/healthz`, `/readyz`). */
import { ping } from '@runbook/db';
import { createServiceServer, type ServiceServer } from '@runbook/rpc';
import type { CatalogDeps } from './deps.js';
import { catalogRouter } from './router.js';
import { createContext } from './trpc.js';

export function createServer(deps: CatalogDeps): Promise<ServiceServer> {
  return createServiceServer({
    name: 'catalog',
    router: catalogRouter,
    createContext: createContext(deps),
    logger: deps.logger,
    readiness: async () => ({ database: await ping(deps.db) }),
    onClose: () => deps.db.destroy(),
  });
}
