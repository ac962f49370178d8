/**
 * Tasks of a runbook: rules, access checks and DTO mapping. Predecessors must be tasks of the same
 * runbook and form a DAG; a task and its predecessor links are written in one transaction that holds
 * the runbook's lock, so concurrent edits cannot combine into a cycle. The graph (tasks and
 * predecessors) can change only while the runbook is in planning — a run counts on it — while names,
 * planning fields, assignees, custom field values and the integration can change at any time.
 * Stage changes are the run engine's (`orchestration/`).
 */
import {
  type Assignee,
  notFound,
  type Page,
  type Principal,
  parseSort,
  type TaskDetailDto,
  unprocessable,
} from '@runbook/contracts';
import { isoOf, msToIso, type PageInput } from '@runbook/db';
import type { Kysely } from 'kysely';
import { assertCanManageWorkspace } from '../access.js';
import {
  checkFieldValues,
  type FieldValueInput,
  fieldReferences,
  mergeFieldValues,
  parseFieldValues,
  serializeFieldValues,
} from '../custom-fields/custom-fields.service.js';
import type { Database, TaskRow, TaskUpdate } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { integrationExists } from '../integrations/integrations.repository.js';
import { findRunbookById, lockRunbook } from '../runbooks/runbooks.repository.js';
import { replaceFieldReferences } from '../usages/references.repository.js';
import { findCycle } from './task-graph.js';
import * as repo from './tasks.repository.js';

const PREDECESSORS_POINTER = '/data/relationships/predecessors';
const FIELD_VALUES_POINTER = '/data/attributes/custom_field_values';

function toTaskDto(row: TaskRow, predecessorIds: string[], successorIds: string[]): TaskDetailDto {
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
    start_planned: msToIso(row.start_planned),
    end_planned: msToIso(row.end_planned),
    custom_field_values: parseFieldValues(row.custom_field_values),
    execution_status: row.execution_status,
    last_error: row.last_error,
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
    predecessor_ids: predecessorIds,
    successor_ids: successorIds,
    assignees: row.assignees ? (JSON.parse(row.assignees) as Assignee[]) : [],
    integration_id: row.integration_id === null ? null : String(row.integration_id),
  };
}

/** DTOs of `rows`, with the predecessors and successors of all of them read in one query. */
async function withLinks(db: Kysely<Database>, rows: TaskRow[]): Promise<TaskDetailDto[]> {
  const ids = rows.map((r) => r.id);
  const wanted = new Set(ids);
  const links = await repo.findTaskLinks(db, ids);
  const predecessors = new Map<number, string[]>();
  const successors = new Map<number, number[]>();
  const push = <V>(map: Map<number, V[]>, key: number, value: V) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const { task_id, predecessor_id } of links) {
    if (wanted.has(task_id)) push(predecessors, task_id, String(predecessor_id));
    if (wanted.has(predecessor_id)) push(successors, predecessor_id, task_id);
  }
  return rows.map((row) =>
    toTaskDto(row, predecessors.get(row.id) ?? [], (successors.get(row.id) ?? []).sort((a, b) => a - b).map(String)),
  );
}

/** @throws {AppError} 404 when runbook `runbookId` has no task `id`. */
export async function getTask(deps: CatalogDeps, runbookId: number, id: number): Promise<TaskDetailDto> {
  const row = await repo.findTask(deps.db, runbookId, id);
  if (!row) throw notFound('task', String(id));
  const [dto] = await withLinks(deps.db, [row]);
  return dto as TaskDetailDto;
}

export interface ListTasksInput extends repo.TaskFilters {
  /** `id`, `name` or `created_at`, `-` prefixed for descending; default `id`. */
  sort?: string | undefined;
}

/**
 * A page of a runbook's tasks, predecessors and successors included. At most three queries: page,
 * count (first page only) and links — or, for an empty page, the runbook's existence.
 * @throws {AppError} 404 unknown runbook; 400 `invalid_cursor`.
 */
export async function listTasks(
  deps: CatalogDeps,
  runbookId: number,
  filters: ListTasksInput,
  page: PageInput,
): Promise<Page<TaskDetailDto>> {
  const sort = parseSort<repo.TaskSortField>(filters.sort, 'id');
  const result = await repo.listTasks(deps.db, runbookId, filters, sort, page);
  // A task proves its runbook exists; only an empty page needs to ask.
  if (result.items.length === 0 && !(await findRunbookById(deps.db, runbookId)))
    throw notFound('runbook', String(runbookId));
  return { ...result, items: await withLinks(deps.db, result.items) };
}

type LockedRunbook = { id: number; workspace_id: number; stage: string };

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
  write: (trx: Kysely<Database>, runbook: LockedRunbook, task: TaskRow | undefined) => Promise<T>,
): Promise<T> {
  return deps.db.transaction().execute(async (trx) => {
    const runbook = await lockRunbook(trx, runbookId);
    if (!runbook) throw notFound('runbook', String(runbookId));
    const task = taskId === null ? undefined : await repo.findTask(trx, runbookId, taskId);
    if (taskId !== null && !task) throw notFound('task', String(taskId));
    assertCanManageWorkspace(principal, runbook.workspace_id, { type: 'runbook', id: String(runbookId) });
    return write(trx, runbook, task);
  });
}

/** @throws {AppError} 422 `runbook_not_editable` unless the runbook is in planning. */
function assertGraphEditable(runbook: LockedRunbook, pointer: string): void {
  if (runbook.stage !== 'planning') {
    throw unprocessable(
      'runbook_not_editable',
      `Tasks and predecessors can be added, removed or re-wired only while the runbook is in planning; runbook ${runbook.id} is ${runbook.stage}.`,
      pointer,
      { runbook_stage: runbook.stage },
    );
  }
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

/** Assignees, de-duplicated and sorted (users first), as stored. */
function normalizeAssignees(assignees: Assignee[]): string | null {
  const seen = new Map<string, Assignee>();
  for (const a of assignees) seen.set(`${a.type}:${a.id}`, a);
  const list = [...seen.values()].sort((a, b) =>
    a.type === b.type ? Number(a.id) - Number(b.id) : a.type === 'user' ? -1 : 1,
  );
  return list.length === 0 ? null : JSON.stringify(list);
}

/** @throws {AppError} 422 `invalid_assignees` (`meta.invalid`: the unknown users and teams); 503 `identity_unavailable`. */
async function assertAssignees(deps: CatalogDeps, assignees: Assignee[] | undefined): Promise<void> {
  if (!assignees || assignees.length === 0) return;
  const distinct = [...new Map(assignees.map((a) => [`${a.type}:${a.id}`, a])).values()];
  const missing = await deps.directory.findMissing(distinct);
  if (missing.length > 0) {
    throw unprocessable(
      'invalid_assignees',
      `These assignees do not exist: ${missing.map((a) => `${a.type} ${a.id}`).join(', ')}.`,
      '/data/relationships/assignees',
      { invalid: missing },
    );
  }
}

/** @throws {AppError} 422 `unknown_integration`. */
async function assertIntegration(deps: CatalogDeps, id: string | null | undefined): Promise<void> {
  if (id === null || id === undefined) return;
  if (!(await integrationExists(deps.db, Number(id)))) {
    throw unprocessable('unknown_integration', `No integration with id "${id}".`, '/data/relationships/integration');
  }
}

const isoToMs = (iso: string | null | undefined): number | null | undefined =>
  iso === undefined ? undefined : iso === null ? null : Date.parse(iso);

export interface CreateTaskInput {
  name: string;
  description: string;
  /** Seconds. */
  duration: number;
  auto_start: boolean;
  auto_finish: boolean;
  predecessor_ids: string[];
  start_planned?: string | null | undefined;
  end_planned?: string | null | undefined;
  custom_field_values?: FieldValueInput | undefined;
  assignees?: Assignee[] | undefined;
  /** The integration the task runs (an integration task), or null/absent for a manual task. */
  integration_id?: string | null | undefined;
}

/**
 * Creates a task (stage `not_startable`) with its predecessors, assignees, custom field values and
 * integration. The runbook must be in planning.
 * @throws {AppError} 404 unknown runbook; 403; 422 `runbook_not_editable`, `invalid_predecessor`,
 *   `unknown_integration`, `invalid_assignees`, custom field value codes (see `checkFieldValues`);
 *   503 `secrets_unavailable`, `identity_unavailable`.
 */
export async function createTask(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  input: CreateTaskInput,
): Promise<TaskDetailDto> {
  // Checks that may call other services run before the transaction takes the runbook's lock.
  await checkFieldValues(deps, 'task', input.custom_field_values ?? [], FIELD_VALUES_POINTER);
  await assertIntegration(deps, input.integration_id);
  await assertAssignees(deps, input.assignees);
  const id = await inRunbookTransaction(deps, principal, runbookId, null, async (trx, runbook) => {
    assertGraphEditable(runbook, '/data');
    const predecessorIds = uniqueIds(input.predecessor_ids);
    await assertValidPredecessors(trx, runbookId, null, predecessorIds);
    const now = deps.now();
    const values = mergeFieldValues(null, input.custom_field_values ?? []);
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
      start_planned: isoToMs(input.start_planned) ?? null,
      end_planned: isoToMs(input.end_planned) ?? null,
      integration_id: input.integration_id ? Number(input.integration_id) : null,
      custom_field_values: serializeFieldValues(values),
      assignees: normalizeAssignees(input.assignees ?? []),
      created_at: now,
      updated_at: now,
    });
    await repo.replacePredecessors(trx, taskId, predecessorIds);
    const refs = fieldReferences(values);
    if (refs.length > 0)
      await replaceFieldReferences(trx, { type: 'task', task_id: taskId, runbook_id: runbookId }, refs);
    return taskId;
  });
  return getTask(deps, runbookId, id);
}

export type UpdateTaskInput = Partial<CreateTaskInput>;

/**
 * Changes the given fields of a task; `predecessor_ids`, when given, replaces its predecessors (the
 * runbook must then be in planning); `custom_field_values` entries set or (value null) remove single
 * fields; `assignees` replaces the assignees. Nothing is written when any check fails.
 * @throws {AppError} 404 unknown runbook or task; 403; 422 `runbook_not_editable`, `invalid_predecessor`,
 *   `predecessor_cycle`, `unknown_integration`, `invalid_assignees`, custom field value codes;
 *   503 `secrets_unavailable`, `identity_unavailable`.
 */
export async function updateTask(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  id: number,
  input: UpdateTaskInput,
): Promise<TaskDetailDto> {
  await checkFieldValues(deps, 'task', input.custom_field_values ?? [], FIELD_VALUES_POINTER);
  await assertIntegration(deps, input.integration_id);
  await assertAssignees(deps, input.assignees);
  await inRunbookTransaction(deps, principal, runbookId, id, async (trx, runbook, task) => {
    const changes: TaskUpdate = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (input.duration !== undefined) changes.duration = input.duration;
    if (input.auto_start !== undefined) changes.auto_start = input.auto_start ? 1 : 0;
    if (input.auto_finish !== undefined) changes.auto_finish = input.auto_finish ? 1 : 0;
    if (input.start_planned !== undefined) changes.start_planned = isoToMs(input.start_planned) ?? null;
    if (input.end_planned !== undefined) changes.end_planned = isoToMs(input.end_planned) ?? null;
    if (input.assignees !== undefined) changes.assignees = normalizeAssignees(input.assignees);
    if (input.integration_id !== undefined)
      changes.integration_id = input.integration_id === null ? null : Number(input.integration_id);
    let refs: ReturnType<typeof fieldReferences> | null = null;
    if (input.custom_field_values !== undefined) {
      const values = mergeFieldValues(task?.custom_field_values ?? null, input.custom_field_values);
      changes.custom_field_values = serializeFieldValues(values);
      refs = fieldReferences(values);
    }
    const predecessorIds = input.predecessor_ids === undefined ? undefined : uniqueIds(input.predecessor_ids);
    if (predecessorIds) {
      assertGraphEditable(runbook, PREDECESSORS_POINTER);
      await assertValidPredecessors(trx, runbookId, id, predecessorIds);
    }
    if (Object.keys(changes).length === 0 && !predecessorIds) return;
    await repo.updateTask(trx, id, { ...changes, updated_at: deps.now() });
    if (predecessorIds) await repo.replacePredecessors(trx, id, predecessorIds);
    if (refs) await replaceFieldReferences(trx, { type: 'task', task_id: id, runbook_id: runbookId }, refs);
  });
  return getTask(deps, runbookId, id);
}

/**
 * Deletes a task; its successors no longer wait for it. The runbook must be in planning.
 * @throws {AppError} 404 unknown runbook or task; 403; 422 `runbook_not_editable`.
 */
export async function deleteTask(
  deps: CatalogDeps,
  principal: Principal,
  runbookId: number,
  id: number,
): Promise<void> {
  await inRunbookTransaction(deps, principal, runbookId, id, async (trx, runbook) => {
    assertGraphEditable(runbook, '/data');
    await repo.deleteTask(trx, id);
  });
}
