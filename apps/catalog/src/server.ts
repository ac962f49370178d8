/** `createServer(deps)`: catalog's HTTP server (tRPC at `/trpc`, `/healthz`, `/readyz`). */
import { ping } from '@runbook/db';
import { createServiceServer, type ServiceServer } from '@runbook/rpc';
import type { CatalogDeps } from './deps.js';
import { catalogRouter } from './router.js';
import { createContext } from './trpc.js';

/** Options of {@link createServer}. */
export interface CatalogServerOptions {
  /** Runs after the HTTP server has drained and before the database closes (index.ts stops the job worker here). */
  beforeClose?: () => Promise<void>;
}

/** Builds catalog's server on `deps` (not listening yet). */
export function createServer(deps: CatalogDeps, options: CatalogServerOptions = {}): Promise<ServiceServer> {
  return createServiceServer({
    name: 'catalog',
    router: catalogRouter,
    createContext: createContext(deps),
    logger: deps.logger,
    readiness: async () => ({ database: await ping(deps.db) }),
    onClose: async () => {
      await options.beforeClose?.();
      await deps.db.destroy();
    },
  });
}
