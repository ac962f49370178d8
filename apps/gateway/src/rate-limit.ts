/**
 * Rate limits at the edge (@fastify/rate-limit), on every route but `/healthz` and `/readyz`:
 * - **per token**: a request presenting a bearer token this gateway has seen succeed (a 2xx or 403
 *   answer proves a service authenticated it) counts against that token's bucket, keyed by the
 *   SHA-256 of the credential — never the credential;
 * - **per IP**: every other request (no or malformed `Authorization`, or a token not yet proven
 *   valid) counts against the client IP's bucket (IPv6 by /64), so cycling made-up tokens does not
 *   escape the limit.
 * Fixed one-minute windows; counters live in Redis when configured (shared by every replica; a Redis
 * failure lets requests through rather than failing them), in process memory otherwise. Limited
 * responses carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the
 * window resets); a 429 also carries `Retry-After` (seconds) and the error document with code
 * `rate_limited`.
 */
import { createHash } from 'node:crypto';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { createRedisClient } from '@runbook/cache';
import { errorTitles } from '@runbook/contracts';
import { credentialFromHeader } from '@runbook/rpc';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Limits and storage of {@link registerRateLimit}. */
export interface RateLimitSettings {
  /** Requests per minute per token; 0 turns per-token limiting off. */
  perTokenPerMinute: number;
  /** Requests per minute per client IP for traffic not (yet) authenticated; 0 turns it off. */
  perIpPerMinute: number;
  /** Shared counters (every replica sees the same buckets); in-process counters when absent. */
  redis?: ReturnType<typeof createRedisClient> | undefined;
  /** Prefix of the Redis keys (default `runbook:gateway:rate-limit:`). */
  redisPrefix?: string | undefined;
}

const WINDOW_MS = 60_000;
const UNLIMITED_PATHS = new Set(['/healthz', '/readyz']);
/** Tokens remembered as proven valid, at most (oldest forgotten first: they fall back to their IP's bucket once). */
const KNOWN_TOKENS_MAX = 100_000;

const tokenHashes = new WeakMap<FastifyRequest, string | null>();

/** SHA-256 (base64url) of the request's bearer credential, or null; computed once per request. */
const tokenHash = (req: FastifyRequest): string | null => {
  let hash = tokenHashes.get(req);
  if (hash === undefined) {
    const { credential } = credentialFromHeader(req.headers.authorization);
    hash = credential ? createHash('sha256').update(credential).digest('base64url') : null;
    tokenHashes.set(req, hash);
  }
  return hash;
};

/**
 * Registers the limiter on `app` (call it before routes are served). Does nothing without settings,
 * so tests and benchmarks that build the gateway directly are not limited.
 */
export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings | undefined): Promise<void> {
  if (!settings) return;
  const { perTokenPerMinute, perIpPerMinute, redis } = settings;
  await app.register(fastifyRateLimit, {
    global: false,
    cache: 50_000,
    ...(redis ? { redis, nameSpace: settings.redisPrefix ?? 'runbook:gateway:rate-limit:' } : {}),
  });
  if (redis) app.addHook('onClose', async () => void redis.disconnect());

  const known = new Map<string, true>();
  const limitOf = (key: string) => (key.startsWith('t:') ? perTokenPerMinute : perIpPerMinute);
  const check = app.createRateLimit({
    timeWindow: WINDOW_MS,
    skipOnError: true,
    keyGenerator: (req) => {
      const hash = tokenHash(req);
      return hash && known.has(hash) ? `t:${hash}` : `ip:${normalizeIP(req.ip)}`;
    },
    max: (_req, key) => limitOf(key),
    allowList: (req, key) => limitOf(key) === 0 || UNLIMITED_PATHS.has(req.url.split('?')[0] ?? ''),
  });

  app.addHook('onRequest', async (req, reply) => {
    const limit = await check(req);
    if (limit.isAllowed) return;
    reply.header('ratelimit-limit', limit.max);
    reply.header('ratelimit-remaining', limit.remaining);
    reply.header('ratelimit-reset', limit.ttlInSeconds);
    if (!limit.isExceeded) return;
    reply.header('retry-after', limit.ttlInSeconds);
    return reply.code(429).send({
      errors: [
        {
          status: '429',
          code: 'rate_limited',
          title: errorTitles[429],
          detail: `Rate limit of ${limit.max} requests per minute exceeded; retry in ${limit.ttlInSeconds} s.`,
        },
      ],
    });
  });

  app.addHook('onResponse', async (req, reply) => {
    const hash = tokenHash(req);
    if (!hash) return;
    if (reply.statusCode === 401) known.delete(hash);
    else if ((reply.statusCode < 300 || reply.statusCode === 403) && !known.has(hash)) {
      known.set(hash, true);
      if (known.size > KNOWN_TOKENS_MAX) known.delete(known.keys().next().value as string);
    }
  });
}
