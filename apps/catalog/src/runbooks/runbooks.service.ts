/** Runbooks: rules, access checks and DTO mapping. */
import { notFound, type Page, type Principal, parseSort, type RunbookDto, unprocessable } from '@runbook/contracts';
import { isForeignKeyViolation, isoOf, type PageInput } from '@runbook/db';
import { assertCanManageWorkspace } from '../access.js';
import type { RunbookRow, RunbookUpdate } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { readPage } from '../paging.js';
import { findWorkspaceById } from '../workspaces/workspaces.repository.js';
import * as repo from './runbooks.repository.js';

function toRunbookDto(row: RunbookRow): RunbookDto {
  return {
    id: String(row.id),
    workspace_id: String(row.workspace_id),
    name: row.name,
    description: row.description,
    stage: row.stage,
    run_type: row.run_type,
    is_template: Boolean(row.is_template),
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
  };
}

/** @throws {AppError} 404 when the runbook does not exist. */
export async function findRunbookOr404(deps: CatalogDeps, id: number): Promise<RunbookRow> {
  const row = await repo.findRunbookById(deps.db, id);
  if (!row) throw notFound('runbook', String(id));
  return row;
}

/** @throws {AppError} 404 when the runbook does not exist. */
export async function getRunbook(deps: CatalogDeps, id: number): Promise<RunbookDto> {
  return toRunbookDto(await findRunbookOr404(deps, id));
}

export interface ListRunbooksInput extends repo.RunbookFilters {
  /** `name`, `created_at` or `id`, `-` prefixed for descending; default `id`. */
  sort?: string | undefined;
}

/**
 * A page of runbooks. Costs two queries on the first page (page, count) and one when following a cursor.
 * @throws {AppError} 400 `invalid_cursor`.
 */
export async function listRunbooks(
  deps: CatalogDeps,
  input: ListRunbooksInput,
  page: PageInput,
): Promise<Page<RunbookDto>> {
  const sort = parseSort<repo.RunbookSortField>(input.sort, 'id');
  const result = await readPage(repo.listRunbooks(deps.db, input, sort, page));
  return { ...result, items: result.items.map(toRunbookDto) };
}

export interface CreateRunbookInput {
  workspace_id: number;
  name: string;
  description: string;
  is_template: boolean;
}

const unknownWorkspace = (id: number) =>
  unprocessable('unknown_workspace', `No workspace with id "${id}".`, '/data/relationships/workspace');

/**
 * Creates a runbook in stage `planning`.
 * @throws {AppError} 422 `unknown_workspace`; 403 without workspace_manager for that workspace.
 */
export async function createRunbook(
  deps: CatalogDeps,
  principal: Principal,
  input: CreateRunbookInput,
): Promise<RunbookDto> {
  if (!(await findWorkspaceById(deps.db, input.workspace_id))) throw unknownWorkspace(input.workspace_id);
  assertCanManageWorkspace(principal, input.workspace_id);
  const now = deps.now();
  let id: number;
  try {
    id = await repo.insertRunbook(deps.db, {
      workspace_id: input.workspace_id,
      name: input.name,
      description: input.description,
      run_type: null,
      is_template: input.is_template ? 1 : 0,
      created_at: now,
      updated_at: now,
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw unknownWorkspace(input.workspace_id);
    throw error;
  }
  return getRunbook(deps, id);
}

/**
 * Changes a runbook's name and/or description (omitted fields are kept).
 * @throws {AppError} 404; 403 without workspace_manager for its workspace.
 */
export async function updateRunbook(
  deps: CatalogDeps,
  principal: Principal,
  id: number,
  input: { name?: string | undefined; description?: string | undefined },
): Promise<RunbookDto> {
  const row = await findRunbookOr404(deps, id);
  assertCanManageWorkspace(principal, row.workspace_id);
  const changes: RunbookUpdate = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (Object.keys(changes).length === 0) return toRunbookDto(row);
  await repo.updateRunbook(deps.db, id, { ...changes, updated_at: deps.now() });
  return getRunbook(deps, id);
}

/**
 * Deletes a runbook with all its tasks.
 * @throws {AppError} 404; 403 without workspace_manager for its workspace.
 */
export async function deleteRunbook(deps: CatalogDeps, principal: Principal, id: number): Promise<void> {
  const row = await findRunbookOr404(deps, id);
  assertCanManageWorkspace(principal, row.workspace_id);
  await repo.deleteRunbook(deps.db, id);
}
