/**
 * Typed clients for service-to-service calls. One client per target service, reused for every
 * call. The credential is the caller's own service credential unless a call forwards a user's:
 * `client.x.y.query(input, { context: { credential } })`.
 *
 * Transport: `@trpc/client`'s typed client with {@link serviceLink}, a terminating link (tRPC's
 * documented extension point, https://trpc.io/docs/client/links) that sends each operation as one
 * HTTP request over undici's `request` with a keep-alive pool. Measured here (bench/hop.bench.mjs,
 * docs/performance.md): the global `fetch` was the largest cost of a hop, and `httpLink` over
 * undici still cost 0.04 ms CPU per call more than this link (its fetch emulation, header
 * resolution and per-call abort controllers).
 */
import { createTRPCClient, TRPCClientError, type TRPCLink } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
import { observable } from '@trpc/server/observable';
import { Agent, request } from 'undici';

/** Per-call context understood by {@link createServiceClient}'s link. */
export interface ServiceCallContext extends Record<string, unknown> {
  /** Bearer credential to present instead of the client's default. */
  credential?: string;
}

/** Options of {@link createServiceClient}. */
export interface ServiceClientOptions {
  /** Keep-alive connections per service origin (default 64). */
  connections?: number;
  /** Abort a call after this many milliseconds without a response (default 30 000). */
  timeoutMs?: number;
}

/**
 * A terminating link speaking tRPC's HTTP RPC format (https://trpc.io/docs/rpc) without batching
 * and without a data transformer (DESIGN §3): a query is `GET <base>/trpc/<path>?input=<json>`, a
 * mutation `POST <base>/trpc/<path>` with a JSON body; `{"result":{"data"}}` resolves, `{"error"}`
 * rejects with a `TRPCClientError` carrying the server's error shape (and `data.httpStatus`).
 * Network failures, timeouts and non-JSON answers reject with a `TRPCClientError` without a shape
 * (mapped to 503 by {@link toTRPCError}). The caller's `signal` (`query(input, { signal })`)
 * cancels the request; subscriptions are not supported.
 */
function serviceLink(baseUrl: string, defaultCredential: string | undefined, agent: Agent, timeoutMs: number) {
  const base = `${baseUrl.replace(/\/$/, '')}/trpc/`;
  const link: TRPCLink<AnyRouter> =
    () =>
    ({ op }) =>
      observable((observer) => {
        const { type, path, input } = op;
        if (type === 'subscription') throw new Error('Subscriptions are not supported by the service link.');
        const credential = (op.context as ServiceCallContext).credential ?? defaultCredential;
        const headers: Record<string, string> = credential ? { authorization: `Bearer ${credential}` } : {};
        const query = type === 'query';
        if (!query) headers['content-type'] = 'application/json';
        const url =
          query && input !== undefined
            ? `${base}${path}?input=${encodeURIComponent(JSON.stringify(input))}`
            : `${base}${path}`;
        request(url, {
          method: query ? 'GET' : 'POST',
          headers,
          body: query || input === undefined ? null : JSON.stringify(input),
          signal: op.signal ?? undefined,
          dispatcher: agent,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        })
          .then((res) =>
            (res.body.json() as Promise<{ result?: { data: unknown }; error?: unknown }>).catch(() => {
              // JSON.parse's message quotes the body, which may hold resolved secret values.
              throw new Error(`The service answered ${res.statusCode} with a body that is not JSON.`);
            }),
          )
          .then((json) => {
            if (json.error !== undefined || json.result === undefined) {
              observer.error(TRPCClientError.from(json as never));
              return;
            }
            observer.next({ result: json.result as { type: 'data'; data: unknown } });
            observer.complete();
          })
          .catch((cause: unknown) => observer.error(TRPCClientError.from(cause as Error)));
      });
  return link;
}

/**
 * @param baseUrl the service's base URL, e.g. `http://127.0.0.1:4001` (`/trpc` is appended).
 * @param defaultCredential this service's credential, sent when a call does not forward one.
 * @returns the typed tRPC client of `TRouter`; calls reject with `TRPCClientError` (see {@link serviceLink}).
 */
export function createServiceClient<TRouter extends AnyRouter>(
  baseUrl: string,
  defaultCredential?: string,
  options: ServiceClientOptions = {},
) {
  const agent = new Agent({ connections: options.connections ?? 64, keepAliveTimeout: 30_000 });
  return createTRPCClient<TRouter>({
    links: [serviceLink(baseUrl, defaultCredential, agent, options.timeoutMs ?? 30_000)],
  });
}
