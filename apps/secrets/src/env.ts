/** The secrets service's environment, parsed once by `index.ts` (server) or `cli.ts` (operator commands). */
import { authCacheTtlMs, port, serviceEnv, serviceUrl } from '@runbook/config';
import { z } from 'zod';

/** Variables both the server and the CLI read: storage, cache and encryption keys. */
const storageEnv = {
  ...serviceEnv,
  /**
   * Encryption keys, `id:base64key,id:base64key` (each key 32 random bytes, e.g.
   * `openssl rand -base64 32`; ids `[A-Za-z0-9_.-]`, ≤ 64). Unset = a key generated once into
   * `<DATA_DIR>/secrets-encryption-key` (embedded default only; a warning is logged).
   */
  SECRETS_ENCRYPTION_KEYS: z.string().optional(),
  /** Id of the key new values are encrypted with; may be omitted when exactly one key is configured. */
  SECRETS_ACTIVE_KEY_ID: z.string().optional(),
  /** `production` (the container image) forbids generating a local encryption key. */
  NODE_ENV: z.string().optional(),
  /** Most system parameters this instance accepts (creating more answers 422 `parameter_limit_reached`). */
  SECRETS_MAX_PARAMETERS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /**
   * Lifetime of a cached ciphertext (ms). Writes delete cache entries at once; this only bounds how
   * long an entry filled by a read racing a write on another replica can stay stale.
   */
  SECRETS_CACHE_TTL_MS: z.coerce.number().int().min(1000).max(86_400_000).default(60_000),
  /** Prefix of every parameter cache key and channel (shared Redis); default `<REDIS_PREFIX>secrets:`. */
  SECRETS_CACHE_PREFIX: z.string().min(1).max(100).optional(),
};

/** Server environment. */
export const secretsEnvSchema = z.object({
  ...storageEnv,
  PORT: port(4002),
  IDENTITY_URL: serviceUrl.default('http://127.0.0.1:4001'),
  /** This service's own credential (issued by identity), presented when asking identity to authenticate callers. */
  SERVICE_CREDENTIAL: z.string().min(1, 'is required: the credential identity issued to the secrets service'),
  /** Authentication results are reused for this long (ms); bounds how late a revocation takes effect here. */
  AUTH_CACHE_TTL_MS: authCacheTtlMs,
});
/** Parsed server environment. */
export type SecretsEnv = z.infer<typeof secretsEnvSchema>;

/** CLI environment (`rotate-key`): no HTTP, no identity. */
export const secretsCliEnvSchema = z.object(storageEnv);
/** Parsed CLI environment. */
export type SecretsCliEnv = z.infer<typeof secretsCliEnvSchema>;
