/**
 * Run lifecycle of runbooks (`start`, `pause`, `resume`, `cancel`) and task actions (`start`,
 * `finish`, `skip`): the rules, access checks and error codes; the transitions themselves are the
 * engine's. Invalid transitions are 422 with a stable code:
 *
 * | code                      | when                                                                  |
 * |---------------------------|-----------------------------------------------------------------------|
 * | `invalid_transition`      | the runbook or task is not in a stage the action applies to (`meta.stage`) |
 * | `runbook_not_active`      | a task is started while the run is not active, or finished/skipped outside a run |
 * | `predecessors_incomplete` | a task is started before all its predecessors completed (`meta.incomplete_predecessor_ids`) |
 */
import { type Actor, AppError, type Assignee, notFound, type Principal } from '@runbook/contracts';
import { assertCanManageWorkspace, assertVisible, checkTaskAction } from '../access.js';
import { insertComment } from '../comments/comments.repository.js';
import type { CatalogDeps } from '../deps.js';
import * as engine from './engine.js';
import { cancelRunbookJobs, cancelTaskJobs, unparkRunbookJobs } from './jobs.repository.js';
import * as repo from './run.repository.js';

/** The actor recorded for `principal`'s actions. */
export const actorOf = (principal: Principal): Actor =>
  principal.kind === 'user' ? { type: 'user', id: principal.user_id } : { type: 'service', id: principal.service };

const invalidTransition = (detail: string, meta: Record<string, unknown>) =>
  new AppError(422, 'invalid_transition', detail, { meta });

/** Runs `work` on runbook `id` after the access check; 404 when it does not exist. */
async function onRunbook(
  deps: CatalogDeps,
  principal: Principal,
  id: number,
  work: (run: engine.RunContext) => Promise<void>,
): Promise<void> {
  const done = await engine.inRun(deps, id, async (run) => {
    assertCanManageWorkspace(principal, run.runbook.workspace_id, { type: 'runbook', id: String(id) });
    await work(run);
  });
  if (!done) throw notFound('runbook', String(id));
}

/**
 * `planning → active`: tasks reset, root tasks startable, auto-start ones started.
 * @throws {AppError} 404; 403; 422 `invalid_transition` unless the runbook is in planning.
 */
export function startRunbook(
  deps: CatalogDeps,
  principal: Principal,
  id: number,
  runType: 'live' | 'rehearsal',
): Promise<void> {
  return onRunbook(deps, principal, id, async (run) => {
    if (run.runbook.stage !== 'planning') {
      throw invalidTransition(`Only a runbook in planning can be started; this one is ${run.runbook.stage}.`, {
        stage: run.runbook.stage,
        action: 'start',
      });
    }
    await engine.startRun(run, runType, actorOf(principal));
  });
}

/**
 * `active → paused`: nothing starts until resume (requests already sent are recorded; their tasks complete).
 * @throws {AppError} 404; 403; 422 `invalid_transition` unless active.
 */
export function pauseRunbook(deps: CatalogDeps, principal: Principal, id: number, message: string | null) {
  return onRunbook(deps, principal, id, async (run) => {
    if (run.runbook.stage !== 'active') {
      throw invalidTransition(`Only an active runbook can be paused; this one is ${run.runbook.stage}.`, {
        stage: run.runbook.stage,
        action: 'pause',
      });
    }
    await engine.setRunbookStage(run, 'paused', 'runbook_paused', actorOf(principal), message);
  });
}

/**
 * `paused → active`: parked jobs become due, auto-start tasks that became startable start.
 * @throws {AppError} 404; 403; 422 `invalid_transition` unless paused.
 */
export function resumeRunbook(deps: CatalogDeps, principal: Principal, id: number, message: string | null) {
  return onRunbook(deps, principal, id, async (run) => {
    if (run.runbook.stage !== 'paused') {
      throw invalidTransition(`Only a paused runbook can be resumed; this one is ${run.runbook.stage}.`, {
        stage: run.runbook.stage,
        action: 'resume',
      });
    }
    const unparked = await unparkRunbookJobs(run.trx, id, run.now);
    await engine.resumeRun(run, actorOf(principal), message);
    if (unparked > 0) run.wake = true;
  });
}

/**
 * `active | paused → canceled`: waiting jobs are canceled; tasks keep their stages.
 * @throws {AppError} 404; 403; 422 `invalid_transition` unless active or paused.
 */
export function cancelRunbook(deps: CatalogDeps, principal: Principal, id: number, message: string | null) {
  return onRunbook(deps, principal, id, async (run) => {
    if (run.runbook.stage !== 'active' && run.runbook.stage !== 'paused') {
      throw invalidTransition(`Only an active or paused runbook can be canceled; this one is ${run.runbook.stage}.`, {
        stage: run.runbook.stage,
        action: 'cancel',
      });
    }
    await cancelRunbookJobs(run.trx, id, run.now);
    await engine.setRunbookStage(run, 'canceled', 'runbook_canceled', actorOf(principal), message);
  });
}

/**
 * Runs a task action on task `taskId` of runbook `runbookId` after the 404 (missing, or in a
 * workspace the principal cannot see) and access checks. When only membership in one of the
 * task's teams could allow the action, the transaction ends without work, identity is asked
 * outside it (no row lock held while identity answers) and the action is tried once more with the
 * answer, against the task as it then is.
 * @throws {AppError} 404; 403; 503 `identity_unavailable` when team membership cannot be checked.
 */
async function onTask(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  taskId: number,
  work: (run: engine.RunContext, task: repo.ActionTask) => Promise<void>,
): Promise<void> {
  const attempt = (teamsOfUser?: ReadonlySet<string>) =>
    engine.inRun(deps, runbookId, async (run) => {
      assertVisible(principal, run.runbook.workspace_id, { type: 'runbook', id: String(runbookId) });
      const task = await repo.findActionTask(run.trx, runbookId, taskId);
      if (!task) throw notFound('task', String(taskId));
      const assignees = JSON.parse(task.assignees ?? '[]') as Assignee[];
      if (checkTaskAction(principal, run.runbook.workspace_id, assignees, teamsOfUser) === 'ask_teams') {
        return assignees.filter((a) => a.type === 'team').map((a) => a.id);
      }
      await work(run, task);
      return null;
    });
  let done = await attempt();
  // Only a user is asked about teams, and never twice: with the answer the check allows or throws.
  if (done?.value && principal.kind === 'user') {
    done = await attempt(new Set(await deps.directory.teamsOfUser(principal.user_id, done.value)));
  }
  if (!done) throw notFound('runbook', String(runbookId));
}

const notActive = (stage: string, action: string, allowed: string) =>
  new AppError(
    422,
    'runbook_not_active',
    `A task can be ${action} only while its runbook is ${allowed}; the runbook is ${stage}.`,
    { meta: { runbook_stage: stage, action } },
  );

/**
 * Starts a startable task (by hand). On an integration task in progress whose execution failed
 * (`execution_status` `failed`), start retries: a new execution job with a new Idempotency-Key.
 * @throws {AppError} 404; 403; 422 `runbook_not_active`, `predecessors_incomplete`, `invalid_transition`.
 */
export function startTask(deps: CatalogDeps, principal: Principal, runbookId: number, taskId: number) {
  return onTask(deps, principal, runbookId, taskId, async (run, task) => {
    if (run.runbook.stage !== 'active') throw notActive(run.runbook.stage, 'started', 'active');
    const actor = actorOf(principal);
    if (task.stage === 'not_startable') {
      const incomplete = await repo.incompletePredecessors(run.trx, task.id);
      throw new AppError(
        422,
        'predecessors_incomplete',
        `Task ${task.id} cannot start before its predecessors complete: ${incomplete.join(', ')}.`,
        { meta: { incomplete_predecessor_ids: incomplete.map(String) } },
      );
    }
    if (task.stage === 'in_progress' && task.integration_id !== null && task.execution_status === 'failed') {
      await repo.setExecutionState(run.trx, task.id, 'queued', null, run.now);
      engine.queueExecution(run, task.id);
      engine.recordEvent(run, {
        kind: 'task_retried',
        task_id: task.id,
        from: 'in_progress',
        to: 'in_progress',
        actor,
      });
      return;
    }
    if (task.stage !== 'startable') {
      throw invalidTransition(`Only a startable task can be started; task ${task.id} is ${task.stage}.`, {
        stage: task.stage,
        action: 'start',
      });
    }
    await engine.cascade(run, await engine.startTasks(run, [task], actor));
  });
}

/**
 * Finishes a task in progress (`complete_normal`); an integration task's waiting execution is canceled.
 * @throws {AppError} 404; 403; 422 `runbook_not_active` (not active or paused), `invalid_transition`.
 */
export function finishTask(deps: CatalogDeps, principal: Principal, runbookId: number, taskId: number) {
  return onTask(deps, principal, runbookId, taskId, async (run, task) => {
    if (run.runbook.stage !== 'active' && run.runbook.stage !== 'paused')
      throw notActive(run.runbook.stage, 'finished', 'active or paused');
    if (task.stage !== 'in_progress') {
      throw invalidTransition(`Only a task in progress can be finished; task ${task.id} is ${task.stage}.`, {
        stage: task.stage,
        action: 'finish',
      });
    }
    await cancelTaskJobs(run.trx, task.id, run.now);
    const ready = await engine.completeTasks(run, [task], 'complete_normal', actorOf(principal));
    await engine.cascade(run, ready);
  });
}

/**
 * Skips a task that is not complete (`complete_skipped`), recording `comment` on the task and in the log.
 * @throws {AppError} 404; 403; 422 `runbook_not_active` (not active or paused), `invalid_transition`.
 */
export function skipTask(deps: CatalogDeps, principal: Principal, runbookId: number, taskId: number, comment: string) {
  return onTask(deps, principal, runbookId, taskId, async (run, task) => {
    if (run.runbook.stage !== 'active' && run.runbook.stage !== 'paused')
      throw notActive(run.runbook.stage, 'skipped', 'active or paused');
    if (task.stage === 'complete') {
      throw invalidTransition(`Task ${task.id} is already complete.`, { stage: task.stage, action: 'skip' });
    }
    const actor = actorOf(principal);
    await cancelTaskJobs(run.trx, task.id, run.now);
    await insertComment(run.trx, {
      runbook_id: runbookId,
      task_id: task.id,
      author_type: actor.type,
      author_id: actor.id,
      body: comment,
      created_at: run.now,
    });
    const ready = await engine.completeTasks(run, [task], 'complete_skipped', actor, comment);
    await engine.cascade(run, ready);
  });
}
