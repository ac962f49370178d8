/**
 * Tasks of a runbook: rules, access checks and DTO mapping. Predecessors must be tasks of the same
 * runbook and form a DAG; a task and its predecessor links are written in one transaction that holds
 * the runbook's lock, so concurrent edits cannot combine into a cycle.
 */
import { notFound, type Page, type Principal, type TaskDto, unprocessable } from '@runbook/contracts';
import { isoOf, msToIso, type PageInput } from '@runbook/db';
import type { Kysely } from 'kysely';
import { assertCanManageWorkspace } from '../access.js';
import type { Database, TaskRow, TaskUpdate } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { readPage } from '../paging.js';
import { findRunbookById, lockRunbook } from '../runbooks/runbooks.repository.js';
import { findCycle } from './task-graph.js';
import * as repo from './tasks.repository.js';

const PREDECESSORS_POINTER = '/data/relationships/predecessors';

function toTaskDto(row: TaskRow, predecessorIds: string[]): TaskDto {
  return {
    id: String(row.id),
    runbook_id: String(row.runbook_id),
    name: row.name,
    description: row.description,
    stage: row.stage,
    completion_type: row.completion_type,
    duration: row.duration,
    auto_start: Boolean(row.auto_start),
    auto_finish: Boolean(row.auto_finish),
    start_actual: msToIso(row.start_actual),
    end_actual: msToIso(row.end_actual),
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
    predecessor_ids: predecessorIds,
  };
}

/** DTOs of `rows`, with the predecessors of all of them read in one query. */
async function withPredecessors(db: Kysely<Database>, rows: TaskRow[]): Promise<TaskDto[]> {
  const links = await repo.findPredecessorLinks(
    db,
    rows.map((r) => r.id),
  );
  const byTask = new Map<number, string[]>();
  for (const { task_id, predecessor_id } of links) {
    const list = byTask.get(task_id);
    if (list) list.push(String(predecessor_id));
    else byTask.set(task_id, [String(predecessor_id)]);
  }
  return rows.map((row) => toTaskDto(row, byTask.get(row.id) ?? []));
}

/** @throws {AppError} 404 when runbook `runbookId` has no task `id`. */
export async function getTask(deps: CatalogDeps, runbookId: number, id: number): Promise<TaskDto> {
  const row = await repo.findTask(deps.db, runbookId, id);
  if (!row) throw notFound('task', String(id));
  const [dto] = await withPredecessors(deps.db, [row]);
  return dto as TaskDto;
}

/**
 * A page of a runbook's tasks by id, predecessors included. At most three queries: page, count (first
 * page only) and predecessors — or, for an empty page, the runbook's existence.
 * @throws {AppError} 404 unknown runbook; 400 `invalid_cursor`.
 */
export async function listTasks(
  deps: CatalogDeps,
  runbookId: number,
  filters: { stage?: TaskDto['stage'] | undefined },
  page: PageInput,
): Promise<Page<TaskDto>> {
  const result = await readPage(repo.listTasks(deps.db, runbookId, filters, page));
  // A task proves its runbook exists; only an empty page needs to ask.
  if (result.items.length === 0 && !(await findRunbookById(deps.db, runbookId)))
    throw notFound('runbook', String(runbookId));
  return { ...result, items: await withPredecessors(deps.db, result.items) };
}

/**
 * Runs `write` in a transaction that holds runbook `runbookId`'s lock, once the runbook (and task
 * `taskId`, when given) is known to exist and `principal` may change it.
 * @throws {AppError} 404 unknown runbook or task; 403.
 */
function inRunbookTransaction<T>(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  taskId: number | null,
  write: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return deps.db.transaction().execute(async (trx) => {
    const runbook = await lockRunbook(trx, runbookId);
    if (!runbook) throw notFound('runbook', String(runbookId));
    if (taskId !== null && !(await repo.findTask(trx, runbookId, taskId))) throw notFound('task', String(taskId));
    assertCanManageWorkspace(principal, runbook.workspace_id);
    return write(trx);
  });
}

const uniqueIds = (ids: string[]): number[] => [...new Set(ids.map(Number))].sort((a, b) => a - b);

/**
 * Checks that `predecessorIds` are tasks of the runbook and, when they replace those of an existing
 * task `taskId`, that the graph stays acyclic.
 * @throws {AppError} 422 `invalid_predecessor` (`meta.invalid_ids`) or `predecessor_cycle` (`meta.cycle`).
 */
async function assertValidPredecessors(
  trx: Kysely<Database>,
  runbookId: number,
  taskId: number | null,
  predecessorIds: number[],
): Promise<void> {
  if (predecessorIds.length === 0) return;
  const found = new Set(await repo.findTaskIdsInRunbook(trx, runbookId, predecessorIds));
  const invalid = predecessorIds.filter((id) => !found.has(id)).map(String);
  if (invalid.length > 0) {
    throw unprocessable(
      'invalid_predecessor',
      `Predecessors must be tasks of runbook ${runbookId}; these are not: ${invalid.join(', ')}.`,
      PREDECESSORS_POINTER,
      { invalid_ids: invalid },
    );
  }
  // A new task has no successors yet, so it cannot close a cycle.
  if (taskId === null) return;
  const cycle = findCycle(taskId, predecessorIds, await repo.findRunbookLinks(trx, runbookId));
  if (cycle) {
    const ids = cycle.map(String);
    throw unprocessable(
      'predecessor_cycle',
      `These predecessors would form a cycle: ${[...ids, ids[0]].join(' → ')} (each task waits for the next).`,
      PREDECESSORS_POINTER,
      { cycle: ids },
    );
  }
}

export interface CreateTaskInput {
  name: string;
  description: string;
  /** Seconds. */
  duration: number;
  auto_start: boolean;
  auto_finish: boolean;
  predecessor_ids: string[];
}

/**
 * Creates a task (stage `not_startable`) with its predecessors.
 * @throws {AppError} 404 unknown runbook; 403; 422 `invalid_predecessor`.
 */
export async function createTask(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  input: CreateTaskInput,
): Promise<TaskDto> {
  const id = await inRunbookTransaction(deps, principal, runbookId, null, async (trx) => {
    const predecessorIds = uniqueIds(input.predecessor_ids);
    await assertValidPredecessors(trx, runbookId, null, predecessorIds);
    const now = deps.now();
    const taskId = await repo.insertTask(trx, {
      runbook_id: runbookId,
      name: input.name,
      description: input.description,
      completion_type: null,
      duration: input.duration,
      auto_start: input.auto_start ? 1 : 0,
      auto_finish: input.auto_finish ? 1 : 0,
      start_actual: null,
      end_actual: null,
      created_at: now,
      updated_at: now,
    });
    await repo.replacePredecessors(trx, taskId, predecessorIds);
    return taskId;
  });
  return getTask(deps, runbookId, id);
}

export type UpdateTaskInput = Partial<CreateTaskInput>;

/**
 * Changes the given fields of a task; `predecessor_ids`, when given, replaces its predecessors.
 * Nothing is written when any check fails.
 * @throws {AppError} 404 unknown runbook or task; 403; 422 `invalid_predecessor` or `predecessor_cycle`.
 */
export async function updateTask(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  id: number,
  input: UpdateTaskInput,
): Promise<TaskDto> {
  await inRunbookTransaction(deps, principal, runbookId, id, async (trx) => {
    const changes: TaskUpdate = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (input.duration !== undefined) changes.duration = input.duration;
    if (input.auto_start !== undefined) changes.auto_start = input.auto_start ? 1 : 0;
    if (input.auto_finish !== undefined) changes.auto_finish = input.auto_finish ? 1 : 0;
    const predecessorIds = input.predecessor_ids === undefined ? undefined : uniqueIds(input.predecessor_ids);
    if (predecessorIds) await assertValidPredecessors(trx, runbookId, id, predecessorIds);
    if (Object.keys(changes).length === 0 && !predecessorIds) return;
    await repo.updateTask(trx, id, { ...changes, updated_at: deps.now() });
    if (predecessorIds) await repo.replacePredecessors(trx, id, predecessorIds);
  });
  return getTask(deps, runbookId, id);
}

/**
 * Deletes a task; its successors no longer wait for it.
 * @throws {AppError} 404 unknown runbook or task; 403.
 */
export async function deleteTask(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  id: number,
): Promise<void> {
  await inRunbookTransaction(deps, principal, runbookId, id, (trx) => repo.deleteTask(trx, id));
}
