/**
 * Browser sessions of the settings UI (`/settings`), as plain Fastify routes (not REST API
 * operations, so they are not in `/openapi.json`):
 * - `POST /settings/api/sign-in` `{email, password}` → identity `sessions.signIn`; on success sets
 *   `rb_session` (the `rbw_…` credential: HttpOnly, SameSite=Strict, Path=/, Secure when the instance
 *   is served over https) and `rb_csrf` (a random CSRF token readable by the page), and answers
 *   `{data: {user, expires_at}}`. Errors are error documents (401 `invalid_credentials`, 429
 *   `rate_limited` with Retry-After — identity limits failures per email + client IP and audits them).
 * - `POST /settings/api/sign-out` → revokes the session and clears both cookies; 204.
 *
 * On `/trpc`, `/core` and `/settings/api` requests without an `Authorization` header, the `rb_session`
 * cookie is forwarded as the bearer credential. Such cookie-authenticated requests that may change
 * state (any method but GET/HEAD/OPTIONS) must carry `X-CSRF-Token` equal to the `rb_csrf` cookie
 * (double-submit), else 403 `csrf_token_invalid`. Requests with a bearer token are exempt (a page of
 * another origin cannot make a browser send one).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import { AppError, errorTitles } from '@runbook/contracts';
import { toTRPCError } from '@runbook/rpc';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { GatewayDeps } from './deps.js';

/** The session cookie (HttpOnly). */
export const SESSION_COOKIE = 'rb_session';
/** The CSRF cookie (readable by the page, echoed as the `X-CSRF-Token` header). */
export const CSRF_COOKIE = 'rb_csrf';
/** The header that must echo {@link CSRF_COOKIE} on state-changing cookie-authenticated requests. */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const COOKIE_AUTH_PREFIXES = ['/trpc/', '/core/', '/settings/api/'];

const signInBody = z.object({ email: z.string().trim().min(1).max(254), password: z.string().min(1).max(256) });

function errorDocument(status: number, code: string, detail: string) {
  return {
    errors: [
      { status: String(status), code, title: errorTitles[status as keyof typeof errorTitles] ?? 'Error', detail },
    ],
  };
}

const sameToken = (a: string | undefined, b: string | undefined): boolean => {
  if (!a || !b || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
};

/** Sends what a downstream call threw as an error document (the code survives the hop). */
function sendError(reply: FastifyReply, error: unknown, deps: GatewayDeps) {
  const converted = toTRPCError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: error }));
  const app = converted.cause instanceof AppError ? converted.cause : undefined;
  if (!app || app.status >= 500) {
    if (!app) deps.logger.error({ err: error }, 'unexpected error in a session route');
    return reply
      .code(app?.status ?? 500)
      .send(app ? { errors: app.errors } : errorDocument(500, 'internal_error', 'An unexpected error occurred.'));
  }
  const retryAfter = app.retryAfter ?? (app.errors[0]?.meta?.retry_after_seconds as number | undefined);
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  return reply.code(app.status).send({ errors: app.errors });
}

/**
 * Registers the cookie handling and the sign-in/out routes on `app` (see the module comment). Call it
 * before the rate limiter so a forwarded session counts against the session's bucket.
 */
export async function registerSession(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  await app.register(fastifyCookie);
  const secure = (req: FastifyRequest) => deps.publicUrl.startsWith('https:') || req.protocol === 'https';

  app.addHook('onRequest', async (req, reply) => {
    if (req.headers.authorization) return;
    if (!COOKIE_AUTH_PREFIXES.some((prefix) => req.url.startsWith(prefix))) return;
    // Signing in needs no session (and a stale cookie must not block it).
    if (req.url.startsWith('/settings/api/sign-in')) return;
    const session = req.cookies[SESSION_COOKIE];
    if (!session) return;
    if (!SAFE_METHODS.has(req.method)) {
      const header = req.headers[CSRF_HEADER];
      if (!sameToken(typeof header === 'string' ? header : undefined, req.cookies[CSRF_COOKIE])) {
        return reply
          .code(403)
          .send(
            errorDocument(
              403,
              'csrf_token_invalid',
              `A request authenticated by the session cookie must send the ${CSRF_COOKIE} cookie's value in the X-CSRF-Token header.`,
            ),
          );
      }
    }
    req.headers.authorization = `Bearer ${session}`;
  });

  app.post('/settings/api/sign-in', async (req, reply) => {
    const parsed = signInBody.safeParse(req.body);
    if (!parsed.success) {
      return reply.code(422).send(errorDocument(422, 'validation_failed', 'Enter your email and password.'));
    }
    try {
      const result = await deps.identity.sessions.signIn.mutate({ ...parsed.data, ip: req.ip }, { context: {} });
      const expires = new Date(result.expires_at);
      const options = { path: '/', sameSite: 'strict' as const, secure: secure(req), expires };
      reply.setCookie(SESSION_COOKIE, result.session, { ...options, httpOnly: true });
      reply.setCookie(CSRF_COOKIE, randomBytes(32).toString('base64url'), { ...options, httpOnly: false });
      reply.header('cache-control', 'no-store');
      return reply.send({ data: { user: result.user, expires_at: result.expires_at } });
    } catch (error) {
      return sendError(reply, error, deps);
    }
  });

  app.post('/settings/api/sign-out', async (req, reply) => {
    const credential = req.cookies[SESSION_COOKIE];
    try {
      if (credential) await deps.identity.sessions.signOut.mutate(undefined, { context: { credential } });
    } catch (error) {
      return sendError(reply, error, deps);
    }
    const options = { path: '/', sameSite: 'strict' as const, secure: secure(req) };
    reply.clearCookie(SESSION_COOKIE, { ...options, httpOnly: true });
    reply.clearCookie(CSRF_COOKIE, options);
    return reply.code(204).send();
  });
}
