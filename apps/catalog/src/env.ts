/** Catalog's environment, parsed once by `index.ts`. */
import { authCacheTtlMs, port, serviceEnv, serviceUrl } from '@runbook/config';
import { z } from 'zod';
import { defaultOrchestrationConfig as d } from './deps.js';

const ms = (fallback: number, min = 1) => z.coerce.number().int().min(min).max(86_400_000).default(fallback);

export const catalogEnvSchema = z.object({
  ...serviceEnv,
  PORT: port(4003),
  /** Identity's base URL; every call's credential is authenticated there. */
  IDENTITY_URL: serviceUrl,
  /** Secrets' base URL: template validation and, for integration tasks, resolution of `{{system.*}}`. */
  SECRETS_URL: serviceUrl.optional(),
  /** Catalog's own service credential, presented to identity and secrets. */
  SERVICE_CREDENTIAL: z.string().min(1),
  /** Authentication results are reused for this long (ms); bounds how late a revocation takes effect here. */
  AUTH_CACHE_TTL_MS: authCacheTtlMs,
  /** How long a claimed job is reserved before another worker may re-run it (ms). Integration timeouts are capped at half of it. */
  CATALOG_JOB_LEASE_MS: ms(d.leaseMs, 1000),
  /** How often an idle worker looks for due jobs (ms). */
  CATALOG_WORKER_POLL_MS: ms(d.pollMs, 10),
  /** Jobs run at the same time by this process. */
  CATALOG_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(d.concurrency),
  /** First retry delay of a failed execution (ms); doubles per attempt. */
  CATALOG_RETRY_BASE_MS: ms(d.retryBaseMs),
  /** Longest retry delay (ms). */
  CATALOG_RETRY_MAX_DELAY_MS: ms(d.retryMaxDelayMs),
  /** Attempts of an execution before its task is marked failed for a human. */
  CATALOG_RETRY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(d.maxAttempts),
  /** Automatic task starts per transaction before the rest continues in a job. */
  CATALOG_CASCADE_BUDGET: z.coerce.number().int().min(1).max(100_000).default(d.cascadeBudget),
  /** Finished jobs are deleted this many hours after their last change (0 keeps them). Executions and run events stay. */
  CATALOG_JOB_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(0)
    .max(87_600)
    .default(d.jobRetentionMs / 3_600_000),
});
export type CatalogEnv = z.infer<typeof catalogEnvSchema>;
