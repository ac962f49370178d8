/** Identity's environment, parsed once by `index.ts`. */
import { authCacheTtlMs, port, serviceEnv } from '@runbook/config';
import { z } from 'zod';

export const identityEnvSchema = z.object({
  ...serviceEnv,
  PORT: port(4001),
  /** Authentication results are reused for this long (ms); bounds how late a revocation takes effect. */
  AUTH_CACHE_TTL_MS: authCacheTtlMs,
  /** Maximum user app token lifetime in days; unset = tokens may never expire. */
  TOKEN_MAX_LIFETIME_DAYS: z.coerce.number().int().min(1).max(3650).optional(),
  /** Failures of one credential within the window that are recorded once in the audit trail (`authentication_failures`). */
  AUTH_FAILURE_THRESHOLD: z.coerce.number().int().min(1).max(10_000).default(5),
  /** Window, in seconds, in which repeated failures of one credential are counted. */
  AUTH_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** Lifetime of a web UI (settings) session, in hours. */
  WEB_SESSION_TTL_HOURS: z.coerce.number().min(0.01).max(720).default(12),
  /** Failed web sign-ins allowed per email + client IP per minute; more are answered 429. */
  SIGN_IN_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  /** First run: create an admin user with every role and write its token to `<DATA_DIR>/admin-token`. */
  BOOTSTRAP_ADMIN: z.enum(['0', '1']).default('0'),
  BOOTSTRAP_ADMIN_EMAIL: z.email().default('admin@runbook.local'),
  /** First run: issue credentials for these services (comma-separated) into `<DATA_DIR>/credentials/<name>`. */
  BOOTSTRAP_SERVICE_CREDENTIALS: z
    .string()
    .regex(/^[a-z0-9_,-]*$/)
    .default(''),
});
export type IdentityEnv = z.infer<typeof identityEnvSchema>;
