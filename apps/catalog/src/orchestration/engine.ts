/**
 * The run engine: every stage change of a run happens here, inside a transaction that holds the
 * runbook's lock ({@link inRun}). The graph is advanced incrementally — each task carries the number
 * of its predecessors still incomplete (`pending_predecessors`) and each runbook the number of its
 * tasks still incomplete (`tasks_remaining`) — so completing a batch of tasks costs O(those tasks +
 * their outgoing edges), never a rescan of the runbook.
 *
 * Automatic steps (auto start, auto finish, successors becoming startable) cascade in the same
 * transaction up to `cascadeBudget` tasks; what is left is written as an `advance` job, so huge
 * runbooks advance in bounded transactions and a crash loses nothing. Integration tasks that start
 * get an `execute_integration` job in the same transaction (the outbox); the worker sends the request.
 */
import type { Actor, RunbookDto } from '@runbook/contracts';
import type { Kysely } from 'kysely';
import type { Database, NewRunEventRow } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { enqueueJobs, type NewJob } from './jobs.repository.js';
import * as repo from './run.repository.js';

type Db = Kysely<Database>;
type CompletionType = 'complete_normal' | 'complete_skipped' | 'complete_abandoned' | 'complete_auto';

/** The platform itself, as the actor of automatic steps. */
export const SYSTEM: Actor = { type: 'system', id: null };

/** One transaction's view of a run. Mutated by the engine; flushed by {@link inRun}. */
export interface RunContext {
  trx: Db;
  deps: CatalogDeps;
  runbook: repo.LockedRunbook;
  now: number;
  /** Automatic task starts this transaction may still perform. */
  budgetLeft: number;
  events: NewRunEventRow[];
  jobs: NewJob[];
  /** `tasks_remaining` changed and must be written back. */
  remainingDirty: boolean;
  /** Wake the worker after commit even if no job was added here (e.g. jobs were unparked). */
  wake: boolean;
}

/**
 * Runs `work` in a transaction holding runbook `runbookId`'s lock, then writes the buffered events,
 * jobs and counters, and — after commit — wakes the worker when jobs were queued.
 * @returns `work`'s result, or `undefined` when the runbook does not exist.
 */
export async function inRun<T>(
  deps: CatalogDeps,
  runbookId: number,
  work: (run: RunContext) => Promise<T>,
): Promise<{ value: T; runbook: repo.LockedRunbook } | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runOnce(deps, runbookId, work);
    } catch (error) {
      // MySQL may pick this transaction as a deadlock victim (e.g. against a job claim); it is safe to redo.
      const code = (error as { code?: string }).code;
      if (attempt < 4 && (code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT')) continue;
      throw error;
    }
  }
}

async function runOnce<T>(
  deps: CatalogDeps,
  runbookId: number,
  work: (run: RunContext) => Promise<T>,
): Promise<{ value: T; runbook: repo.LockedRunbook } | undefined> {
  let queued = false;
  const out = await deps.db.transaction().execute(async (trx) => {
    const runbook = await repo.lockRunbookRun(trx, runbookId);
    if (!runbook) return undefined;
    const run: RunContext = {
      trx,
      deps,
      runbook: { ...runbook, tasks_remaining: Number(runbook.tasks_remaining) },
      now: deps.now(),
      budgetLeft: deps.orchestration.cascadeBudget,
      events: [],
      jobs: [],
      remainingDirty: false,
      wake: false,
    };
    const value = await work(run);
    await flush(run);
    queued = run.jobs.length > 0 || run.wake;
    return { value, runbook: run.runbook };
  });
  if (queued) deps.jobsQueued();
  return out;
}

async function flush(run: RunContext): Promise<void> {
  if (run.remainingDirty) {
    await repo.setRunbookRunState(run.trx, run.runbook.id, { tasks_remaining: run.runbook.tasks_remaining }, run.now);
  }
  await repo.insertEvents(run.trx, run.events);
  await enqueueJobs(run.trx, run.jobs, run.now);
}

/** Records a stage change of the runbook (`taskId` null) or of a task. */
export function recordEvent(
  run: RunContext,
  event: {
    kind: NewRunEventRow['kind'];
    task_id?: number | null;
    from?: string | null;
    to?: string | null;
    completion_type?: string | null;
    actor: Actor;
    message?: string | null;
  },
): void {
  run.events.push({
    runbook_id: run.runbook.id,
    task_id: event.task_id ?? null,
    kind: event.kind,
    from_stage: event.from ?? null,
    to_stage: event.to ?? null,
    completion_type: event.completion_type ?? null,
    run_type: event.task_id ? null : run.runbook.run_type,
    actor_type: event.actor.type,
    actor_id: event.actor.id,
    message: event.message ?? null,
    created_at: run.now,
  });
}

/** Changes the runbook's stage (and run type), recording the change. */
export async function setRunbookStage(
  run: RunContext,
  to: RunbookDto['stage'],
  kind: string,
  actor: Actor,
  message: string | null = null,
  runType?: 'live' | 'rehearsal',
): Promise<void> {
  const from = run.runbook.stage;
  run.runbook.stage = to;
  if (runType) run.runbook.run_type = runType;
  await repo.setRunbookRunState(
    run.trx,
    run.runbook.id,
    { stage: to, ...(runType ? { run_type: runType } : {}) },
    run.now,
  );
  recordEvent(run, { kind, from, to, actor, message });
}

/**
 * Starts a run: every task back to `not_startable` with its predecessor count, the runbook `active`,
 * root tasks startable (auto-start ones started). A runbook without tasks completes at once.
 */
export async function startRun(run: RunContext, runType: 'live' | 'rehearsal', actor: Actor): Promise<void> {
  await repo.resetTasksForRun(run.trx, run.runbook.id, run.now);
  run.runbook.tasks_remaining = await repo.countTasks(run.trx, run.runbook.id);
  run.remainingDirty = true;
  await setRunbookStage(run, 'active', 'runbook_started', actor, null, runType);
  if (run.runbook.tasks_remaining === 0) {
    await setRunbookStage(run, 'complete', 'runbook_completed', SYSTEM);
    return;
  }
  await cascade(run, await repo.findRootTasks(run.trx, run.runbook.id));
}

/** Resumes a paused run: auto-start tasks that became startable meanwhile are started (bounded by the budget). */
export async function resumeRun(run: RunContext, actor: Actor, message: string | null): Promise<void> {
  await setRunbookStage(run, 'active', 'runbook_resumed', actor, message);
  await autoStart(run, await repo.findStartableAutoTasks(run.trx, run.runbook.id));
}

/**
 * Continues automatic starts of `taskIds` (an `advance` job): those still startable are started
 * while the runbook is active; on pause they wait for resume.
 */
export async function continueRun(run: RunContext, taskIds: readonly number[]): Promise<void> {
  if (run.runbook.stage !== 'active') return;
  await autoStart(run, await repo.findEngineTasks(run.trx, run.runbook.id, taskIds));
}

/**
 * Makes `ready` (tasks whose predecessors just all completed) startable, then starts the auto-start
 * ones when the runbook is active, cascading through auto finishes.
 */
export async function cascade(run: RunContext, ready: readonly repo.EngineTask[]): Promise<void> {
  await autoStart(run, await makeStartable(run, ready));
}

async function makeStartable(run: RunContext, ready: readonly repo.EngineTask[]): Promise<repo.EngineTask[]> {
  const tasks = ready.filter((t) => t.stage === 'not_startable');
  if (tasks.length === 0) return [];
  await repo.setTaskStage(
    run.trx,
    tasks.map((t) => t.id),
    { stage: 'startable' },
    run.now,
  );
  for (const t of tasks) {
    t.stage = 'startable';
    recordEvent(run, { kind: 'task_startable', task_id: t.id, from: 'not_startable', to: 'startable', actor: SYSTEM });
  }
  return run.runbook.stage === 'active' ? tasks.filter((t) => t.auto_start) : [];
}

async function autoStart(run: RunContext, candidates: readonly repo.EngineTask[]): Promise<void> {
  let queue = candidates.filter((t) => t.stage === 'startable' && t.auto_start);
  while (queue.length > 0 && run.runbook.stage === 'active') {
    if (run.budgetLeft <= 0) {
      run.jobs.push({
        kind: 'advance',
        runbook_id: run.runbook.id,
        task_id: null,
        payload: { task_ids: queue.map((t) => t.id) },
      });
      return;
    }
    const batch = queue.slice(0, run.budgetLeft);
    run.budgetLeft -= batch.length;
    const ready = await startTasks(run, batch, SYSTEM);
    queue = [...queue.slice(batch.length), ...(await makeStartable(run, ready))];
  }
}

/**
 * Starts `tasks` (all `startable`): `in_progress`; integration tasks get an execution job; manual
 * tasks with `auto_finish` complete at once (`complete_auto`).
 * @returns successors that became ready through those completions (not yet startable: pass to {@link cascade}).
 */
export async function startTasks(
  run: RunContext,
  tasks: readonly repo.EngineTask[],
  actor: Actor,
): Promise<repo.EngineTask[]> {
  if (tasks.length === 0) return [];
  const manual = tasks.filter((t) => t.integration_id === null);
  const integration = tasks.filter((t) => t.integration_id !== null);
  if (manual.length > 0) {
    await repo.setTaskStage(
      run.trx,
      manual.map((t) => t.id),
      { stage: 'in_progress', start_actual: run.now },
      run.now,
    );
  }
  if (integration.length > 0) {
    await repo.setTaskStage(
      run.trx,
      integration.map((t) => t.id),
      { stage: 'in_progress', start_actual: run.now, execution_status: 'queued', last_error: null },
      run.now,
    );
    for (const t of integration) queueExecution(run, t.id);
  }
  for (const t of tasks) {
    t.stage = 'in_progress';
    recordEvent(run, { kind: 'task_started', task_id: t.id, from: 'startable', to: 'in_progress', actor });
  }
  const autoFinish = manual.filter((t) => t.auto_finish);
  return completeTasks(run, autoFinish, 'complete_auto', SYSTEM);
}

/** Queues the execution job of integration task `taskId` (a new job: a new Idempotency-Key). */
export function queueExecution(run: RunContext, taskId: number): void {
  run.jobs.push({ kind: 'execute_integration', runbook_id: run.runbook.id, task_id: taskId, payload: {} });
}

/**
 * Completes `tasks` with `completionType`, counts their successors' pending predecessors down and
 * completes the runbook when nothing is left.
 * @returns successors that became ready (pass to {@link cascade}).
 */
export async function completeTasks(
  run: RunContext,
  tasks: readonly repo.EngineTask[],
  completionType: CompletionType,
  actor: Actor,
  message: string | null = null,
): Promise<repo.EngineTask[]> {
  if (tasks.length === 0) return [];
  await repo.setTaskStage(
    run.trx,
    tasks.map((t) => t.id),
    { stage: 'complete', completion_type: completionType, end_actual: run.now },
    run.now,
  );
  for (const t of tasks) {
    recordEvent(run, {
      kind: 'task_completed',
      task_id: t.id,
      from: t.stage,
      to: 'complete',
      completion_type: completionType,
      actor,
      message,
    });
    t.stage = 'complete';
  }
  run.runbook.tasks_remaining -= tasks.length;
  run.remainingDirty = true;
  const ready = await repo.releaseSuccessors(
    run.trx,
    tasks.map((t) => t.id),
  );
  if (run.runbook.tasks_remaining <= 0 && (run.runbook.stage === 'active' || run.runbook.stage === 'paused')) {
    run.runbook.tasks_remaining = 0;
    await setRunbookStage(run, 'complete', 'runbook_completed', SYSTEM);
  }
  return ready;
}
