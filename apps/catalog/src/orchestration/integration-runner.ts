/**
 * Runs an `execute_integration` job: resolves the integration's templates through secrets (URL in
 * the `url` context, header values in `header`, the body in `json`), sends the request with the
 * integration's timeout and the job's `Idempotency-Key`, records the execution with every secret
 * masked, and settles the task — all from the job's claim, fenced by its lease:
 *
 * 1. Checks: runbook canceled/complete → job canceled; paused → job parked until resume; task no
 *    longer in progress → job done; attempts beyond the limit (repeated crashes) → failed.
 * 2. Resolution. A failure (e.g. 422 `unknown_system_parameters`) is recorded as an execution with
 *    `sent: false` — nothing is sent with a partial value.
 * 3. Before sending, the claim is re-checked and an `in_flight` execution is written; if the process
 *    dies now, the next claim marks it `interrupted` and sends again with the same key, so the
 *    receiver can de-duplicate.
 * 4. Outcome, in one transaction with the run lock: the execution row; the job `done`, re-queued with
 *    exponential backoff (`retryBaseMs · 2^(attempt−1)`, capped at `retryMaxDelayMs`) or `failed`
 *    after `maxAttempts`; the task `complete_auto` on success (successors released), or left in
 *    progress with `execution_status` `retrying` / `failed` and `last_error`.
 */
import { performance } from 'node:perf_hooks';
import { AppError } from '@runbook/contracts';
import type { JobRow } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { findIntegration } from '../integrations/integrations.repository.js';
import { type IntegrationSpec, specOf } from '../integrations/integrations.service.js';
import type { ResolvedTemplates, TemplateToResolve } from '../secrets-port.js';
import * as engine from './engine.js';
import { finishExecution, insertExecution, markInterrupted } from './executions.repository.js';
import { claimHolds, settleJob } from './jobs.repository.js';
import { createMasker } from './masking.js';
import * as repo from './run.repository.js';

/** Characters of request and response bodies kept in an execution record. */
export const EXCERPT_CHARS = 2_000;
/** Bytes of a response read at most (the rest is discarded). */
const RESPONSE_READ_LIMIT = 65_536;

/** Delay before attempt `attempt + 1` after attempt `attempt` failed. */
export function retryDelay(deps: CatalogDeps, attempt: number): number {
  const { retryBaseMs, retryMaxDelayMs } = deps.orchestration;
  return Math.min(retryMaxDelayMs, retryBaseMs * 2 ** Math.max(0, attempt - 1));
}

/** What an attempt produced. */
interface Outcome {
  success: boolean;
  status: number | null;
  excerpt: string | null;
  durationMs: number | null;
  errorCode: string | null;
  errorDetail: string | null;
}

/** A failure before any request was sent: no status, no excerpt, no duration. */
const notSent = (errorCode: string, errorDetail: string): Outcome => ({
  success: false,
  status: null,
  excerpt: null,
  durationMs: null,
  errorCode,
  errorDetail,
});

async function readExcerpt(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_READ_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(parts).toString('utf8').slice(0, EXCERPT_CHARS);
}

const isSuccess = (spec: IntegrationSpec, status: number) =>
  spec.success_statuses.length > 0 ? spec.success_statuses.includes(status) : status >= 200 && status < 300;

/** The templates of `spec` in resolution order: URL, header values, body. */
function templatesOf(spec: IntegrationSpec): TemplateToResolve[] {
  return [
    { template: spec.url, context: 'url' },
    ...spec.headers.map((h) => ({ template: h.value, context: 'header' as const })),
    ...(spec.body === null ? [] : [{ template: spec.body, context: 'json' as const }]),
  ];
}

/** Runs one claimed `execute_integration` job (see the module comment). Never throws for expected failures. */
export async function runExecutionJob(deps: CatalogDeps, job: JobRow): Promise<void> {
  const taskId = job.task_id;
  const runbook = await repo.findRunbookStage(deps.db, job.runbook_id);
  const task = taskId === null ? undefined : await repo.findActionTask(deps.db, job.runbook_id, taskId);
  const now = deps.now();
  if (!runbook || !task) {
    await settleJob(deps.db, job, { state: 'canceled' }, now);
    return;
  }
  if (runbook.stage === 'paused') {
    await settleJob(deps.db, job, { state: 'parked', attempts: Math.max(0, job.attempts - 1) }, now);
    return;
  }
  if (runbook.stage !== 'active' || task.stage !== 'in_progress') {
    await settleJob(deps.db, job, { state: 'canceled' }, now);
    return;
  }
  const row = task.integration_id === null ? undefined : await findIntegration(deps.db, task.integration_id);
  await markInterrupted(deps.db, job.id, now);
  if (!row) {
    await settle(
      deps,
      job,
      task.id,
      null,
      notSent('integration_missing', 'The task no longer runs an integration; set one or finish the task by hand.'),
      true,
    );
    return;
  }
  const spec = specOf(row);
  const base = {
    task_id: task.id,
    runbook_id: job.runbook_id,
    integration_id: row.id,
    job_id: job.id,
    attempt: job.attempts,
    idempotency_key: job.idempotency_key,
    started_at: now,
  };
  if (job.attempts > deps.orchestration.maxAttempts) {
    await settle(
      deps,
      job,
      task.id,
      null,
      notSent(
        'attempts_exhausted',
        `The request was interrupted or failed ${job.attempts - 1} times; retry by starting the task again.`,
      ),
      true,
    );
    return;
  }

  let resolved: ResolvedTemplates;
  try {
    resolved = await deps.secrets.resolve(templatesOf(spec));
  } catch (error) {
    const e =
      error instanceof AppError ? error : new AppError(500, 'internal_error', 'Resolution failed unexpectedly.');
    if (!(error instanceof AppError)) deps.logger.error({ err: error, job_id: job.id }, 'resolution failed');
    const executionId = await insertExecution(deps.db, {
      ...base,
      outcome: 'failed',
      sent: 0,
      request_line: `${spec.method} ${spec.url}`,
      request_headers: JSON.stringify(spec.headers),
      request_body: spec.body?.slice(0, EXCERPT_CHARS) ?? null,
      error_code: e.code,
      error_detail: e.message,
      finished_at: deps.now(),
    });
    await settle(deps, job, task.id, executionId, notSent(e.code, e.message));
    return;
  }

  const mask = createMasker(resolved.secret_values);
  const [url, ...rest] = resolved.results as [string, ...string[]];
  const headers: Record<string, string> = {};
  spec.headers.forEach((h, i) => {
    headers[h.name] = rest[i] as string;
  });
  const body = spec.body === null ? undefined : (rest[spec.headers.length] as string);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/json';
  }
  headers['Idempotency-Key'] = job.idempotency_key;

  // Fence: never send for a claim that has lapsed (another worker may own the job now).
  if (!(await claimHolds(deps.db, job, deps.now()))) return;
  const executionId = await insertExecution(deps.db, {
    ...base,
    outcome: 'in_flight',
    sent: 1,
    request_line: mask(`${spec.method} ${url}`),
    request_headers: JSON.stringify(Object.entries(headers).map(([name, value]) => ({ name, value: mask(value) }))),
    request_body: body === undefined ? null : mask(body.slice(0, EXCERPT_CHARS)),
  });

  // The timeout stays well inside the lease, so a slow receiver cannot outlive the claim.
  const timeout = Math.max(1, Math.min(spec.timeout_ms, Math.floor(deps.orchestration.leaseMs / 2)));
  const started = performance.now();
  let outcome: Outcome;
  try {
    const res = await deps.fetch(url, {
      method: spec.method,
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeout),
    });
    const excerpt = mask(await readExcerpt(res));
    const ok = isSuccess(spec, res.status);
    outcome = {
      success: ok,
      status: res.status,
      excerpt,
      durationMs: Math.round(performance.now() - started),
      errorCode: ok ? null : 'unexpected_status',
      errorDetail: ok
        ? null
        : `The receiver answered ${res.status}; expected ${spec.success_statuses.length > 0 ? spec.success_statuses.join(', ') : 'a 2xx status'}.`,
    };
  } catch (error) {
    const timedOut = error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    outcome = {
      success: false,
      status: null,
      excerpt: null,
      durationMs: Math.round(performance.now() - started),
      errorCode: timedOut ? 'timeout' : 'network_error',
      errorDetail: timedOut
        ? `No response within ${timeout} ms.`
        : mask(`The request could not be sent: ${cause?.code ?? cause?.message ?? (error as Error).message}.`),
    };
  }
  await settle(deps, job, task.id, executionId, outcome);
}

/**
 * Records `outcome` on execution `executionId` (when given) and settles job and task in one run transaction.
 * @param permanent fail at once instead of retrying.
 */
async function settle(
  deps: CatalogDeps,
  job: JobRow,
  taskId: number,
  executionId: number | null,
  outcome: Outcome,
  permanent = false,
): Promise<void> {
  await engine.inRun(deps, job.runbook_id, async (run) => {
    if (executionId !== null) {
      await finishExecution(run.trx, executionId, {
        outcome: outcome.success ? 'succeeded' : 'failed',
        response_status: outcome.status,
        response_excerpt: outcome.excerpt,
        duration_ms: outcome.durationMs,
        error_code: outcome.errorCode,
        error_detail: outcome.errorDetail,
        finished_at: run.now,
      });
    }
    const error = outcome.success ? null : `${outcome.errorCode}: ${outcome.errorDetail}`;
    const retry = !outcome.success && !permanent && job.attempts < deps.orchestration.maxAttempts;
    const owned = await settleJob(
      run.trx,
      job,
      outcome.success
        ? { state: 'done', last_error: null }
        : retry
          ? { state: 'queued', available_at: run.now + retryDelay(deps, job.attempts), last_error: error }
          : { state: 'failed', last_error: error },
      run.now,
    );
    // Canceled (finished or skipped by hand, run canceled) or re-claimed after the lease ran out.
    if (!owned) return;
    const task = await repo.findActionTask(run.trx, job.runbook_id, taskId);
    if (task?.stage !== 'in_progress') return;
    if (outcome.success) {
      await repo.setExecutionState(run.trx, taskId, 'succeeded', null, run.now);
      await engine.cascade(run, await engine.completeTasks(run, [task], 'complete_auto', engine.SYSTEM));
    } else if (retry) {
      await repo.setExecutionState(run.trx, taskId, 'retrying', error, run.now);
    } else {
      await repo.setExecutionState(run.trx, taskId, 'failed', error, run.now);
      engine.recordEvent(run, {
        kind: 'task_execution_failed',
        task_id: taskId,
        from: 'in_progress',
        to: 'in_progress',
        actor: engine.SYSTEM,
        message: `Gave up after ${job.attempts} attempt${job.attempts === 1 ? '' : 's'}: ${error}`,
      });
    }
  });
}
