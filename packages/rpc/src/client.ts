/**
 * Typed clients for service-to-service calls. One client per target service, reused for every
 * call. The credential is the caller's own service credential unless a call forwards a user's:
 * `client.x.y.query(input, { context: { credential } })`.
 *
 * Transport: `@trpc/client`'s typed client with {@link serviceLink}, a terminating link (tRPC's
 * documented extension point, https://trpc.io/docs/client/links) that sends each operation as one
 * HTTP request on undici's dispatcher interface with a keep-alive pool. Measured here
 * (bench/hop.bench.mjs, docs/performance.md): the global `fetch` was the largest cost of a hop,
 * `httpLink` over undici cost 0.04 ms CPU per call more than undici's `request`, and `request`'s
 * response stream more than a dispatch handler collecting the body.
 */
import { createTRPCClient, TRPCClientError, type TRPCLink } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
import { observable } from '@trpc/server/observable';
import { Agent, type Dispatcher } from 'undici';

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

/** One HTTP exchange's outcome: status and the whole body as text. */
interface Exchange {
  status: number;
  text: string;
}

/**
 * Sends one request through `agent` and collects the response body, on undici's dispatcher
 * interface (`Dispatcher.dispatch` with a `DispatchHandler`). `request()` would wrap every response
 * in a Node `Readable` and parse it through the stream machinery — measurable per call on the hop
 * (docs/performance.md); a dispatch handler receives the chunks directly.
 * @returns a promise of the exchange and `cancel(reason)`, which aborts it if still running.
 */
function exchange(
  agent: Agent,
  options: Dispatcher.DispatchOptions,
): { done: Promise<Exchange>; cancel: (reason: Error) => void } {
  let controller: Dispatcher.DispatchController | undefined;
  let cancelled: Error | undefined;
  const done = new Promise<Exchange>((resolve, reject) => {
    let status = 0;
    const chunks: Buffer[] = [];
    agent.dispatch(options, {
      onRequestStart(c) {
        controller = c;
        if (cancelled) c.abort(cancelled);
      },
      onResponseStart(_c, statusCode) {
        status = statusCode;
      },
      onResponseData(_c, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        controller = undefined;
        const text =
          chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
        resolve({ status, text });
      },
      onResponseError(_c, error) {
        controller = undefined;
        reject(error);
      },
    });
  });
  const cancel = (reason: Error) => {
    cancelled ??= reason;
    controller?.abort(reason);
  };
  return { done, cancel };
}

/** The reason a call was cancelled: the signal's own when it is an Error, else an `AbortError`. */
const abortReason = (signal: AbortSignal | null | undefined): Error =>
  signal?.reason instanceof Error ? signal.reason : new DOMException('The call was aborted.', 'AbortError');

/**
 * A terminating link speaking tRPC's HTTP RPC format (https://trpc.io/docs/rpc) without batching
 * and without a data transformer (DESIGN §3): a query is `GET <base>/trpc/<path>?input=<json>`, a
 * mutation `POST <base>/trpc/<path>` with a JSON body; `{"result":{"data"}}` resolves, `{"error"}`
 * rejects with a `TRPCClientError` carrying the server's error shape (and `data.httpStatus`).
 * Network failures, timeouts and non-JSON answers reject with a `TRPCClientError` without a shape
 * (mapped to 503 by {@link toTRPCError}). The caller's `signal` (`query(input, { signal })`)
 * cancels the request, and so does unsubscribing before the answer; subscriptions are not supported.
 */
function serviceLink(baseUrl: string, defaultCredential: string | undefined, agent: Agent, timeoutMs: number) {
  const url = new URL(baseUrl);
  const origin = url.origin;
  const base = `${url.pathname.replace(/\/$/, '')}/trpc/`;
  const link: TRPCLink<AnyRouter> =
    () =>
    ({ op }) =>
      observable((observer) => {
        const { type, path, input, signal } = op;
        if (type === 'subscription') throw new Error('Subscriptions are not supported by the service link.');
        const credential = (op.context as ServiceCallContext).credential ?? defaultCredential;
        const headers: Record<string, string> = credential ? { authorization: `Bearer ${credential}` } : {};
        const query = type === 'query';
        if (!query) headers['content-type'] = 'application/json';
        const call = exchange(agent, {
          origin,
          path:
            query && input !== undefined
              ? `${base}${path}?input=${encodeURIComponent(JSON.stringify(input))}`
              : `${base}${path}`,
          method: query ? 'GET' : 'POST',
          headers,
          body: query || input === undefined ? null : JSON.stringify(input),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        let settled = false;
        const onAbort = () => call.cancel(abortReason(signal));
        const finish = () => {
          settled = true;
          signal?.removeEventListener('abort', onAbort);
        };
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
        call.done.then(
          ({ status, text }) => {
            finish();
            let json: { result?: { data: unknown }; error?: unknown };
            try {
              json = JSON.parse(text);
            } catch {
              // JSON.parse's message quotes the body, which may hold resolved secret values.
              observer.error(
                TRPCClientError.from(new Error(`The service answered ${status} with a body that is not JSON.`)),
              );
              return;
            }
            if (json.error !== undefined || json.result === undefined) {
              observer.error(TRPCClientError.from(json as never));
              return;
            }
            observer.next({ result: json.result as { type: 'data'; data: unknown } });
            observer.complete();
          },
          (cause: unknown) => {
            finish();
            observer.error(TRPCClientError.from(cause as Error));
          },
        );
        // Unsubscribing before the answer (tRPC does on abort) cancels the request.
        return () => {
          if (!settled) call.cancel(abortReason(signal));
        };
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
