/** `createServer(deps)`: the gateway — REST `/core/*`, tRPC `/trpc`, `/openapi.json`, health. */
import { createServiceServer, type ServiceServer } from '@runbook/rpc';
import type { GatewayDeps } from './deps.js';
import { registerDocs } from './docs.js';
import { buildOpenApiDocument } from './openapi.js';
import { registerRateLimit } from './rate-limit.js';
import { registerRest } from './rest.js';
import { gatewayRouter } from './router.js';
import { registerSession } from './session.js';
import { registerSettings } from './settings.js';
import { createContext } from './trpc.js';

export interface GatewayOptions {
  bodyLimit?: number;
  /** Proxies trusted for `X-Forwarded-For` (per-IP rate limits, logs); see `TRUST_PROXY` in the README. */
  trustProxy?: boolean | number | string;
}

export function createServer(deps: GatewayDeps, options: GatewayOptions = {}): Promise<ServiceServer> {
  const context = createContext(deps);
  const openApiDocument = JSON.stringify(buildOpenApiDocument(deps.publicUrl));
  const readinessOf = async (url: () => Promise<unknown>) => {
    try {
      await url();
      return true;
    } catch {
      return false;
    }
  };
  return createServiceServer({
    name: 'gateway',
    router: gatewayRouter,
    createContext: context,
    logger: deps.logger,
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
    readiness: async () => {
      // A service is ready when its tRPC endpoint answers at all (a 401 proves it is up).
      const probe = (call: () => Promise<unknown>) =>
        readinessOf(() =>
          call().catch((e: { data?: { httpStatus?: number } }) => {
            if (e?.data?.httpStatus && e.data.httpStatus < 500) return;
            throw e;
          }),
        );
      const [identity, catalog, secrets] = await Promise.all([
        probe(() => deps.identity.users.me.query(undefined, { context: { credential: 'readiness-probe' } })),
        probe(() => deps.catalog.workspaces.list.query({ page: {} }, { context: { credential: 'readiness-probe' } })),
        probe(() =>
          deps.secrets.systemParameters.list.query({ page: {} }, { context: { credential: 'readiness-probe' } }),
        ),
      ]);
      return { identity, catalog, secrets };
    },
    configure: async (app) => {
      await registerSession(app, deps);
      await registerRateLimit(app, deps.rateLimit);
      app.get('/openapi.json', async (_req, reply) => reply.type('application/json').send(openApiDocument));
      await registerDocs(app);
      await registerSettings(app);
      await registerRest(app, {
        router: gatewayRouter,
        createContext: context,
        onUnexpectedError: (error, path) => deps.logger.error({ err: error, path }, 'unexpected error'),
      });
    },
  });
}
