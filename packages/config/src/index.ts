/**
 * Environment parsing shared by every app. Each app declares one zod schema in its `env.ts` and
 * calls {@link parseEnv} exactly once from `index.ts`; nothing reads `process.env` elsewhere.
 */
import { z } from 'zod';

/** Thrown by {@link parseEnv} when the environment does not match the schema; lists every bad variable. */
export class EnvError extends Error {
  /** One line per invalid variable: `NAME: reason` (values are never included; they may be secrets). */
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid environment:\n  ${problems.join('\n  ')}`);
    this.name = 'EnvError';
    this.problems = problems;
  }
}

/**
 * Parses `env` (default `process.env`) with `schema`.
 * @returns the typed, defaulted configuration.
 * @throws {EnvError} naming every invalid variable (never echoing its value).
 */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.output<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new EnvError(result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  return result.data;
}

/** TCP port 0–65535 given as a decimal string (0 asks the OS for a free port). */
export const port = (defaultPort: number) => z.coerce.number().int().min(0).max(65535).default(defaultPort);

/** A boolean given as `1/0/true/false/yes/no` (case-insensitive). */
export const flag = (defaultValue: boolean) =>
  z
    .enum(['1', '0', 'true', 'false', 'yes', 'no', 'TRUE', 'FALSE'])
    .optional()
    .transform((v) => (v === undefined ? defaultValue : ['1', 'true', 'yes', 'TRUE'].includes(v)));

/** Log level accepted by pino. */
export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/**
 * `REDIS_PREFIX` (default `runbook:`): the start of every key and channel a service of this platform
 * uses in Redis — identity's authentication cache (`<prefix>identity:`), the authentication tier
 * of secrets and catalog (`<prefix>auth:`), secrets' parameter cache (`<prefix>secrets:` unless
 * `SECRETS_CACHE_PREFIX` says otherwise) and the gateway's rate-limit counters
 * (`<prefix>gateway:rate-limit:` unless `RATE_LIMIT_REDIS_PREFIX`). Platforms sharing one Redis need
 * different prefixes: cached authentications are keyed by the credential's hash only, so with one
 * prefix a token of one platform would be accepted by the other for as long as an entry lives.
 */
export const redisPrefix = z.string().min(1).max(100).default('runbook:');

/**
 * The key spaces of one platform under its `REDIS_PREFIX` (see {@link redisPrefix}), so every
 * service and the secrets CLI derive the same names: `identity` (identity's authentication cache),
 * `auth` (the shared authentication tier of secrets and catalog), `secrets` (parameter cache, unless
 * `SECRETS_CACHE_PREFIX`), `rateLimit` (gateway counters, unless `RATE_LIMIT_REDIS_PREFIX`), `signIn`
 * (identity's failed sign-in counters), `authFailures` (identity's authentication failure counters).
 */
export const redisKeySpaces = (prefix: string) => ({
  identity: `${prefix}identity:`,
  auth: `${prefix}auth:`,
  secrets: `${prefix}secrets:`,
  rateLimit: `${prefix}gateway:rate-limit:`,
  signIn: `${prefix}identity:sign-in:`,
  authFailures: `${prefix}identity:auth-failures:`,
});

/**
 * `AUTH_CACHE_TTL_MS` (0–60,000, default 1000): how long an authentication answer is reused, in ms —
 * the bound on how late a revocation takes effect in the service that reads it.
 */
export const authCacheTtlMs = z.coerce.number().int().min(0).max(60_000).default(1000);

/**
 * Env fragment every service shares:
 * - `HOST` (default `127.0.0.1`), `LOG_LEVEL` (default `info`);
 * - `DATA_DIR` — where SQLite files and generated local keys live (default `.data`);
 * - `MYSQL_URL` — when set, the service's database is this MySQL/MariaDB URL
 *   (`mysql://user:pass@host:3306/db`); otherwise SQLite under `DATA_DIR`;
 * - `REDIS_URL` — when set, Redis is the cache; otherwise an in-process cache;
 * - `REDIS_PREFIX` — see {@link redisPrefix};
 * - `SERVICE_CREDENTIAL` — this service's credential for calls to other services.
 */
export const serviceEnv = {
  HOST: z.string().default('127.0.0.1'),
  LOG_LEVEL: logLevel,
  DATA_DIR: z.string().default('.data'),
  MYSQL_URL: z.url({ protocol: /^mysql$/ }).optional(),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  REDIS_PREFIX: redisPrefix,
};

/** An absolute http(s) URL of another service, e.g. `IDENTITY_URL=http://127.0.0.1:4001`. */
export const serviceUrl = z.url({ protocol: /^https?$/ });
