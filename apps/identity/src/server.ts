/** `createServer(deps)`: identity's HTTP server (tRPC at `/trpc`, `/healthz`, `/readyz`). */
import { ping } from '@runbook/db';
import { createServiceServer, type ServiceServer } from '@runbook/rpc';
import type { IdentityDeps } from './deps.js';
import { identityRouter } from './router.js';
import { createContext } from './trpc.js';

export function createServer(deps: IdentityDeps): Promise<ServiceServer> {
  return createServiceServer({
    name: 'identity',
    router: identityRouter,
    createContext: createContext(deps),
    logger: deps.logger,
    readiness: async () => ({ database: await ping(deps.db) }),
    // Without the cache identity authenticates from the database: reported, never failing readiness.
    informational: async () => ({
      cache: await deps.authCache.ping(),
      sign_in_limiter: await deps.signInLimiter.ping(),
    }),
    onClose: async () => {
      await deps.db.destroy();
      await deps.authCache.close();
      await deps.signInLimiter.close();
      await deps.authFailures.close();
    },
  });
}
