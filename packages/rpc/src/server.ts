/**
 * `createServer` for every service: Fastify with `/healthz`, `/readyz`, tRPC at `/trpc`
 * ({@link registerTRPC}: single calls on a direct path, the rest through tRPC's handler), body limit
 * and graceful shutdown. Fastify is used because it was measured faster than tRPC's standalone
 * adapter here and brings body limits, rate limiting and static files as maintained plugins.
 */
import type { AnyRouter } from '@trpc/server';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import { pino } from 'pino';
import { registerTRPC } from './trpc-http.js';

/** Options for {@link createServiceServer}. */
export interface ServiceServerOptions<TRouter extends AnyRouter> {
  /** Service name, used in logs and health output. */
  name: string;
  router: TRouter;
  /** Builds the tRPC context from a request (read headers only; no I/O). */
  createContext: (req: FastifyRequest) => unknown;
  /** Dependency checks for `/readyz`: name → reachable. Any `false` makes `/readyz` answer 503. */
  readiness: () => Promise<Record<string, boolean>>;
  /**
   * Checks reported by `/readyz` without failing it: dependencies the service degrades without
   * (Redis: requests fall back to the database), so an outage of one does not pull every replica
   * out of the load balancer.
   */
  informational?: () => Promise<Record<string, boolean>>;
  logger: Logger;
  /** Largest request body in bytes (default 1 MiB); larger bodies get 413. */
  bodyLimit?: number;
  /**
   * Which proxies to trust for `X-Forwarded-For` (Fastify's `trustProxy`: `true`, a hop count, or a
   * comma-separated list of addresses/CIDRs). Unset: none — `req.ip` is the peer's address.
   */
  trustProxy?: boolean | number | string;
  /** Adds routes or plugins before the server starts (the gateway mounts REST here). */
  configure?: (app: FastifyInstance) => Promise<void> | void;
  /** Releases dependencies (database, cache) after the HTTP server has drained. */
  onClose?: () => Promise<void>;
}

/** A built service: `start` listens, `stop` drains in-flight requests then closes dependencies. */
export interface ServiceServer {
  app: FastifyInstance;
  /** Listens on `host:port` (port 0 = ephemeral); resolves the base URL, e.g. `http://127.0.0.1:4001`. */
  start(options: { port: number; host: string }): Promise<string>;
  stop(): Promise<void>;
}

/** Creates a pino logger that never prints credentials. */
export function createLogger(name: string, level: string): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.credential', '*.value', '*.token'],
      censor: '[redacted]',
    },
  });
}

/** Builds the Fastify app of a service (see {@link ServiceServerOptions}). */
export async function createServiceServer<TRouter extends AnyRouter>(
  options: ServiceServerOptions<TRouter>,
): Promise<ServiceServer> {
  const { trustProxy = false } = options;
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // Per-request log lines cost throughput; unexpected errors are logged by tRPC's onError.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? 1_048_576,
    // A hop count trusts that many proxies nearest to this server (Fastify's number form).
    trustProxy: typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy : trustProxy,
    routerOptions: { maxParamLength: 500 },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  });

  app.get('/healthz', async () => ({ status: 'ok', service: options.name }));
  app.get('/readyz', async (_req, reply) => {
    const [checks, informational] = await Promise.all([options.readiness(), options.informational?.() ?? {}]);
    const ok = Object.values(checks).every(Boolean);
    const degraded = Object.entries(informational)
      .filter(([, up]) => !up)
      .map(([name]) => name);
    return reply.code(ok ? 200 : 503).send({
      status: ok ? (degraded.length > 0 ? 'degraded' : 'ready') : 'unavailable',
      service: options.name,
      checks: { ...checks, ...informational },
      ...(degraded.length > 0 ? { degraded } : {}),
    });
  });

  await registerTRPC(app, '/trpc', {
    router: options.router,
    createContext: options.createContext,
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        options.logger.error({ path, err: error.cause ?? error }, 'unexpected error');
      }
    },
  });

  if (options.configure) await options.configure(app);

  let closed = false;
  return {
    app,
    async start({ port, host }) {
      await app.listen({ port, host });
      const address = app.server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      return `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
    },
    async stop() {
      if (closed) return;
      closed = true;
      await app.close();
      await options.onClose?.();
    },
  };
}

/**
 * Stops `server` on SIGTERM/SIGINT, draining in-flight requests; exits 0 when done, 1 if it takes
 * longer than `graceMs` (default 10 s).
 */
export function stopOnSignals(server: ServiceServer, logger: Logger, graceMs = 10_000): void {
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('graceful shutdown timed out');
      process.exit(1);
    }, graceMs);
    timer.unref();
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
