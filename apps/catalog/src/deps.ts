/** Catalog's dependencies, built once by `index.ts` (or by tests) and passed down. */
import type { Principal } from '@runbook/contracts';
import type { Logger } from '@runbook/rpc';
import type { Kysely } from 'kysely';
import type { Database } from './db/database.js';
import type { Directory } from './directory-port.js';
import type { TemplateService } from './secrets-port.js';

/**
 * Tunables of execution (env in production, see `env.ts`; tests shorten them). Times in milliseconds.
 */
export interface OrchestrationConfig {
  /** Names this process in `jobs.claimed_by` (host and pid in production). */
  workerId: string;
  /** How long a claimed job stays reserved; after that another worker may re-run it. */
  leaseMs: number;
  /** How often an idle worker looks for due jobs (enqueues in this process wake it at once). */
  pollMs: number;
  /** Jobs a worker runs at the same time. */
  concurrency: number;
  /** First retry delay of a failed execution; doubles per attempt up to `retryMaxDelayMs`. */
  retryBaseMs: number;
  retryMaxDelayMs: number;
  /** Attempts of one execution job (the first included) before its task is marked failed. */
  maxAttempts: number;
  /** Most auto start/finish transitions one transaction performs; the rest continue in a job. */
  cascadeBudget: number;
  /**
   * Finished jobs (`done`, `failed`, `canceled`) are deleted this long after their last change
   * (ms; 0 keeps them). Executions and run events are kept regardless.
   */
  jobRetentionMs: number;
  /** How often a worker deletes expired finished jobs (ms). */
  jobPurgeEveryMs: number;
}

/** Defaults of {@link OrchestrationConfig} (the env defaults). */
export const defaultOrchestrationConfig: OrchestrationConfig = {
  workerId: 'catalog',
  leaseMs: 60_000,
  pollMs: 500,
  concurrency: 8,
  retryBaseMs: 1_000,
  retryMaxDelayMs: 60_000,
  maxAttempts: 5,
  cascadeBudget: 1_000,
  jobRetentionMs: 7 * 86_400_000,
  jobPurgeEveryMs: 600_000,
};

export interface CatalogDeps {
  db: Kysely<Database>;
  /**
   * Resolves a bearer credential to its principal (identity, cached; tests use a fake).
   * @throws {AppError} 401 for an invalid credential, 503 when identity is unreachable.
   */
  authenticate: (credential: string) => Promise<Principal>;
  logger: Logger;
  /** Current time, epoch milliseconds. */
  now: () => number;
  /** Template validation and resolution by the secrets service (a fake in tests). */
  secrets: TemplateService;
  /** Whether assigned users and teams exist, and which of a task's teams a user belongs to (identity; a fake in tests). */
  directory: Directory;
  /** Sends integration requests (Node's fetch in production; tests may wrap it). */
  fetch: typeof fetch;
  orchestration: OrchestrationConfig;
  /** Called after a transaction that queued jobs has committed (wakes the in-process worker). */
  jobsQueued: () => void;
}
