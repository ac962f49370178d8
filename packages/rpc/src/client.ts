/**
 * Typed clients for service-to-service calls. One client per target service, reused for every
 * call (Node's fetch keeps connections alive). The credential is the caller's own service
 * credential unless a call forwards a user's: `client.x.y.query(input, { context: { credential } })`.
 */
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';

/** Per-call context understood by {@link createServiceClient}'s link. */
export interface ServiceCallContext extends Record<string, unknown> {
  /** Bearer credential to present instead of the client's default. */
  credential?: string;
}

/**
 * @param baseUrl the service's base URL, e.g. `http://127.0.0.1:4001` (`/trpc` is appended).
 * @param defaultCredential this service's credential, sent when a call does not forward one.
 */
export function createServiceClient<TRouter extends AnyRouter>(baseUrl: string, defaultCredential?: string) {
  const link = httpLink<AnyRouter>({
    url: `${baseUrl.replace(/\/$/, '')}/trpc`,
    headers: ({ op }) => {
      const credential = (op.context as ServiceCallContext).credential ?? defaultCredential;
      return credential ? { authorization: `Bearer ${credential}` } : {};
    },
  });
  return createTRPCClient<TRouter>({ links: [link] });
}
