/**
 * Typed clients for service-to-service calls. One client per target service, reused for every
 * call. The credential is the caller's own service credential unless a call forwards a user's:
 * `client.x.y.query(input, { context: { credential } })`.
 *
 * Transport: tRPC's `httpLink` over undici's `request` API with a keep-alive connection pool
 * instead of the global `fetch` — measured here, `fetch` (Request/Response objects, web streams and
 * abort signals per call) was the largest cost of a gateway → service hop (docs/performance.md).
 */
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
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

type FetchInit = {
  method?: string;
  headers?: Record<string, string> | [string, string][];
  body?: unknown;
  signal?: AbortSignal | null;
};

/** A `fetch`-shaped function over undici's `request` (what tRPC's links need: `ok` and `json()`). */
function undiciFetch(agent: Agent, timeoutMs: number) {
  return async (url: string | URL | Request, init?: FetchInit) => {
    const res = await request(String(url), {
      method: (init?.method ?? 'GET') as 'GET',
      headers: init?.headers as Record<string, string>,
      body: (init?.body as string | undefined) ?? null,
      signal: init?.signal ?? undefined,
      dispatcher: agent,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return {
      ok: res.statusCode >= 200 && res.statusCode < 300,
      status: res.statusCode,
      json: () => res.body.json(),
    };
  };
}

/**
 * @param baseUrl the service's base URL, e.g. `http://127.0.0.1:4001` (`/trpc` is appended).
 * @param defaultCredential this service's credential, sent when a call does not forward one.
 */
export function createServiceClient<TRouter extends AnyRouter>(
  baseUrl: string,
  defaultCredential?: string,
  options: ServiceClientOptions = {},
) {
  const agent = new Agent({ connections: options.connections ?? 64, keepAliveTimeout: 30_000 });
  const link = httpLink<AnyRouter>({
    url: `${baseUrl.replace(/\/$/, '')}/trpc`,
    fetch: undiciFetch(agent, options.timeoutMs ?? 30_000) as never,
    headers: ({ op }) => {
      const credential = (op.context as ServiceCallContext).credential ?? defaultCredential;
      return credential ? { authorization: `Bearer ${credential}` } : {};
    },
  });
  return createTRPCClient<TRouter>({ links: [link] });
}
