/** Gateway environment, parsed once by `index.ts`. */
import { logLevel, port, redisPrefix, serviceUrl } from '@runbook/config';
import { z } from 'zod';

export const gatewayEnvSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: port(3000),
  LOG_LEVEL: logLevel,
  /** Base URL clients use to reach the gateway (for `links`); defaults to `http://HOST:PORT`. */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  IDENTITY_URL: serviceUrl,
  CATALOG_URL: serviceUrl,
  SECRETS_URL: serviceUrl,
  /** Largest request body in bytes (413 beyond). */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(16_777_216).default(1_048_576),
  /** Redis for rate-limit counters shared by every gateway replica; unset = in-process counters. */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /** Requests per minute per user app token (0 = no limit). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
  /** Requests per minute per client IP for traffic without a token proven valid (0 = no limit). */
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  /**
   * Load balancers / proxies whose `X-Forwarded-For` is believed (so per-IP limits apply to clients,
   * not to the proxy): `true` (any), a hop count, or comma-separated addresses/CIDRs. Unset: none.
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .min(1)
    .optional()
    .transform((v) =>
      v === undefined || v === 'false' ? false : v === 'true' ? true : /^\d+$/.test(v) ? Number(v) : v,
    ),
  /** This platform's prefix in Redis (see `redisPrefix` in @runbook/config). */
  REDIS_PREFIX: redisPrefix,
  /** Prefix of the rate-limit keys in Redis; default `<REDIS_PREFIX>gateway:rate-limit:`. */
  RATE_LIMIT_REDIS_PREFIX: z.string().min(1).max(100).optional(),
});
export type GatewayEnv = z.infer<typeof gatewayEnvSchema>;
