/**
 * The gateway, seen from the browser: a typed tRPC client of the gateway router at `/trpc` (the
 * session cookie authenticates; state-changing calls echo the `rb_csrf` cookie in `X-CSRF-Token`),
 * and the sign-in/out routes under `/settings/api/`.
 */
import type { GatewayRouter } from '@runbook/gateway/router';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';

/** The value of cookie `name`, or an empty string. */
export function readCookie(name: string): string {
  for (const part of document.cookie.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return '';
}

const csrfHeaders = (): Record<string, string> => ({ 'x-csrf-token': readCookie('rb_csrf') });

/** The gateway's procedures, typed. */
export const api = createTRPCClient<GatewayRouter>({
  links: [httpLink({ url: '/trpc', headers: csrfHeaders })],
});

interface ErrorObject {
  status?: string;
  code?: string;
  detail?: string;
}

/** An error from `/settings/api/*`, carrying the error document's first object. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

/** A readable message for any error of an API call: the error document's `errors[0].detail`. */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const shape = error.shape as { errors?: ErrorObject[] } | undefined;
    return shape?.errors?.[0]?.detail ?? error.message;
  }
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

/** The HTTP status of an API error, when known. */
export function errorStatus(error: unknown): number | undefined {
  if (error instanceof ApiError) return error.status;
  if (error instanceof TRPCClientError) {
    const data = error.data as { httpStatus?: number } | undefined;
    const shape = error.shape as { errors?: ErrorObject[] } | undefined;
    return data?.httpStatus ?? (shape?.errors?.[0]?.status ? Number(shape.errors[0].status) : undefined);
  }
  return undefined;
}

async function post(path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`/settings/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...csrfHeaders() },
    body: JSON.stringify(body ?? {}),
  });
  if (!res.ok) {
    const doc = (await res.json().catch(() => ({}))) as { errors?: ErrorObject[] };
    const first = doc.errors?.[0];
    throw new ApiError(res.status, first?.code ?? 'error', first?.detail ?? `The request failed (${res.status}).`);
  }
  return res;
}

/** Signs in; the gateway sets the session and CSRF cookies. */
export async function signIn(email: string, password: string): Promise<void> {
  await post('sign-in', { email, password });
}

/** Signs out; the session is revoked and the cookies cleared. */
export async function signOut(): Promise<void> {
  await post('sign-out');
}

/** A timestamp for people: local date and time, or an em dash. */
export const formatTime = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';
