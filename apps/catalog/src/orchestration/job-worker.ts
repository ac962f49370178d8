/**
 * The job worker that runs inside every catalog process: claims due jobs (see `jobs.repository.ts`
 * for the locking), runs up to `concurrency` at a time, and sleeps `pollMs` when idle unless woken
 * by a local enqueue. Several replicas may run workers against one database: a job is claimed by one
 * of them at a time, and a job whose worker died is re-run once its lease expires. Every
 * `jobPurgeEveryMs` the loop also deletes finished jobs older than `jobRetentionMs` (see
 * {@link JobWorker.purgeFinished}).
 */
import type { JobRow } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import * as engine from './engine.js';
import { runExecutionJob } from './integration-runner.js';
import { claimJobs, deleteFinishedJobs, settleJob } from './jobs.repository.js';

/** A running (or runnable) worker. */
export interface JobWorker {
  /** Starts the background loop (idempotent). */
  start(): void;
  /** Stops claiming and waits for the jobs in hand to finish. */
  stop(): Promise<void>;
  /** Looks for due jobs now (called after a local enqueue commits). */
  wake(): void;
  /**
   * Claims and runs due jobs until none is due (tests and benchmarks drive the worker this way).
   * @returns how many jobs ran.
   */
  runDue(): Promise<number>;
  /**
   * Deletes finished jobs (`done`, `failed`, `canceled`) last changed more than `jobRetentionMs`
   * ago, in batches of {@link PURGE_BATCH}, at most {@link PURGE_MAX_BATCHES} batches per call
   * (the running loop calls again at its next turn while expired jobs remain). Nothing when
   * `jobRetentionMs` is 0.
   * @returns how many jobs were deleted.
   */
  purgeFinished(): Promise<number>;
}

/** Jobs deleted per statement by {@link JobWorker.purgeFinished}. */
export const PURGE_BATCH = 1_000;
/** Batches per {@link JobWorker.purgeFinished} call, so one sweep never holds the worker loop long. */
export const PURGE_MAX_BATCHES = 20;

/** Runs one claimed job by kind; unexpected errors release it for a later retry. */
export async function runJob(deps: CatalogDeps, job: JobRow): Promise<void> {
  try {
    switch (job.kind) {
      case 'execute_integration':
        await runExecutionJob(deps, job);
        return;
      case 'advance': {
        const { task_ids } = JSON.parse(job.payload) as { task_ids: number[] };
        await engine.inRun(deps, job.runbook_id, async (run) => {
          if (await settleJob(run.trx, job, { state: 'done' }, run.now)) await engine.continueRun(run, task_ids);
        });
        return;
      }
      default:
        await settleJob(deps.db, job, { state: 'failed', last_error: `unknown job kind ${job.kind}` }, deps.now());
    }
  } catch (error) {
    deps.logger.error({ err: error, job_id: job.id, kind: job.kind }, 'job failed unexpectedly');
    const delay = Math.min(deps.orchestration.retryMaxDelayMs, deps.orchestration.retryBaseMs * 2 ** job.attempts);
    await settleJob(
      deps.db,
      job,
      job.attempts >= deps.orchestration.maxAttempts + 2
        ? { state: 'failed', last_error: 'internal error' }
        : { state: 'queued', available_at: deps.now() + delay, last_error: 'internal error' },
      deps.now(),
    ).catch((e: unknown) => deps.logger.error({ err: e, job_id: job.id }, 'could not release job'));
  }
}

/** Creates the worker of `deps` (not started). */
export function createJobWorker(deps: CatalogDeps): JobWorker {
  const { workerId, leaseMs, pollMs, concurrency, jobRetentionMs, jobPurgeEveryMs } = deps.orchestration;
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | null = null;
  let signal: (() => void) | null = null;
  // A wake-up that arrived while the loop was busy: the next idle returns at once.
  let woken = false;

  const notify = () => {
    const s = signal;
    signal = null;
    if (s) s();
    else woken = true;
  };
  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) {
        woken = false;
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        signal = null;
        resolve();
      }, ms);
      signal = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const claim = (limit: number) => claimJobs(deps.db, workerId, deps.now(), leaseMs, limit);

  // Whether the last sweep stopped at PURGE_MAX_BATCHES with expired jobs left.
  let backlog = false;
  async function purgeFinished(): Promise<number> {
    if (jobRetentionMs <= 0) return 0;
    const before = deps.now() - jobRetentionMs;
    let total = 0;
    backlog = false;
    for (let batch = 0; batch < PURGE_MAX_BATCHES; batch++) {
      const { found, deleted } = await deleteFinishedJobs(deps.db, before, PURGE_BATCH);
      total += deleted;
      if (found < PURGE_BATCH) return total;
    }
    backlog = true;
    return total;
  }
  // The first sweep runs one period after the worker is created, not in the way of a starting
  // process; while a backlog remains, every turn of the loop sweeps (between claims).
  let lastPurge = Date.now();

  async function background(): Promise<void> {
    while (running) {
      if (jobRetentionMs > 0 && (backlog || Date.now() - lastPurge >= jobPurgeEveryMs)) {
        lastPurge = Date.now();
        try {
          const deleted = await purgeFinished();
          if (deleted > 0) deps.logger.info({ deleted }, 'deleted finished jobs past their retention');
        } catch (error) {
          deps.logger.error({ err: error }, 'deleting finished jobs failed');
        }
      }
      let claimed: JobRow[] = [];
      try {
        if (inFlight.size < concurrency) claimed = await claim(concurrency - inFlight.size);
      } catch (error) {
        deps.logger.error({ err: error }, 'claiming jobs failed');
      }
      for (const job of claimed) {
        const p: Promise<void> = runJob(deps, job).finally(() => {
          inFlight.delete(p);
          notify();
        });
        inFlight.add(p);
      }
      if (claimed.length === 0 || inFlight.size >= concurrency) await idle(pollMs);
    }
    await Promise.all(inFlight);
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = background();
    },
    async stop() {
      running = false;
      notify();
      await loop;
      loop = null;
    },
    wake: notify,
    async runDue() {
      let total = 0;
      for (;;) {
        const jobs = await claim(concurrency);
        if (jobs.length === 0) return total;
        total += jobs.length;
        await Promise.all(jobs.map((job) => runJob(deps, job)));
      }
    },
    purgeFinished,
  };
}
