/**
 * Typed tRPC client for TypeScript apps calling the gateway (`/trpc`). Same procedures and the same
 * JSON documents as the REST API (no transformer).
 *
 * ```ts
 * const api = createRunbookClient({ url: 'http://127.0.0.1:3000', token: process.env.RUNBOOK_TOKEN! });
 * const { data } = await api.runbooks.list.query({ 'page[size]': 50 });
 * ```
 * Errors are `TRPCClientError`s whose `shape.errors` is the REST error document's `errors` array
 * (stable `code`s such as `not_found`, `validation_failed`).
 */
import type { GatewayRouter } from '@runbook/gateway/router';
import { createTRPCClient, httpBatchLink, httpLink, type TRPCClient } from '@trpc/client';

/** Options of {@link createRunbookClient}. */
export interface RunbookClientOptions {
  /** Gateway base URL, e.g. `http://127.0.0.1:3000` (`/trpc` is appended). */
  url: string;
  /** A user app token (`rbt_…`). */
  token: string;
  /** Batch calls made in the same tick into one HTTP request (default true). */
  batch?: boolean;
  /** `Api-Version` to request (YYYY-MM-DD); default: the newest. */
  apiVersion?: string;
}

/** Creates a typed client; reuse one per process. */
export function createRunbookClient(options: RunbookClientOptions): TRPCClient<GatewayRouter> {
  const url = `${options.url.replace(/\/$/, '')}/trpc`;
  const headers = () => ({
    authorization: `Bearer ${options.token}`,
    ...(options.apiVersion ? { 'api-version': options.apiVersion } : {}),
  });
  const link = options.batch === false ? httpLink({ url, headers }) : httpBatchLink({ url, headers });
  return createTRPCClient<GatewayRouter>({ links: [link] });
}

/** The typed client {@link createRunbookClient} returns: one property per gateway namespace, `.query()`/`.mutate()` per procedure. */
export type RunbookClient = TRPCClient<GatewayRouter>;
/** The gateway router's type, for apps that build their own tRPC client or infer inputs and outputs. */
export type { GatewayRouter };
