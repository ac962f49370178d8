/** Runbooks: rules, access checks and DTO mapping. */
import {
  notFound,
  type Page,
  type Principal,
  parseSort,
  type RunbookDetailDto,
  unprocessable,
} from '@runbook/contracts';
import { isForeignKeyViolation, isoOf, type PageInput } from '@runbook/db';
import { assertCanManageWorkspace, canSeeWorkspace } from '../access.js';
import {
  checkFieldValues,
  type FieldValueInput,
  fieldReferences,
  mergeFieldValues,
  parseFieldValues,
  serializeFieldValues,
} from '../custom-fields/custom-fields.service.js';
import type { RunbookRow, RunbookUpdate } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { replaceFieldReferences } from '../usages/references.repository.js';
import { findWorkspaceById } from '../workspaces/workspaces.repository.js';
import * as repo from './runbooks.repository.js';

const FIELD_VALUES_POINTER = '/data/attributes/custom_field_values';

function toRunbookDto(row: RunbookRow): RunbookDetailDto {
  return {
    id: String(row.id),
    workspace_id: String(row.workspace_id),
    name: row.name,
    description: row.description,
    stage: row.stage,
    run_type: row.run_type,
    is_template: Boolean(row.is_template),
    custom_field_values: parseFieldValues(row.custom_field_values),
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
export async function getRunbook(deps: CatalogDeps, id: number): Promise<RunbookDetailDto> {
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
): Promise<Page<RunbookDetailDto>> {
  const sort = parseSort<repo.RunbookSortField>(input.sort, 'id');
  const result = await repo.listRunbooks(deps.db, input, sort, page);
  return { ...result, items: result.items.map(toRunbookDto) };
}

export interface CreateRunbookInput {
  workspace_id: number;
  name: string;
  description: string;
  is_template: boolean;
  custom_field_values?: FieldValueInput | undefined;
}

const unknownWorkspace = (id: number) =>
  unprocessable('unknown_workspace', `No workspace with id "${id}".`, '/data/relationships/workspace');

/**
 * Creates a runbook in stage `planning`, with optional custom field values.
 * @throws {AppError} 422 `unknown_workspace`, custom field value codes; 403 without workspace_manager for that workspace.
 */
export async function createRunbook(
  deps: CatalogDeps,
  principal: Principal,
  input: CreateRunbookInput,
): Promise<RunbookDetailDto> {
  // A workspace the caller may not see is reported like a missing one.
  if (!canSeeWorkspace(principal, input.workspace_id) || !(await findWorkspaceById(deps.db, input.workspace_id)))
    throw unknownWorkspace(input.workspace_id);
  assertCanManageWorkspace(principal, input.workspace_id);
  await checkFieldValues(deps, 'runbook', input.custom_field_values ?? [], FIELD_VALUES_POINTER);
  const values = mergeFieldValues(null, input.custom_field_values ?? []);
  const now = deps.now();
  let id: number;
  try {
    id = await deps.db.transaction().execute(async (trx) => {
      const newId = await repo.insertRunbook(trx, {
        workspace_id: input.workspace_id,
        name: input.name,
        description: input.description,
        run_type: null,
        is_template: input.is_template ? 1 : 0,
        custom_field_values: serializeFieldValues(values),
        created_at: now,
        updated_at: now,
      });
      const refs = fieldReferences(values);
      if (refs.length > 0) await replaceFieldReferences(trx, { type: 'runbook', runbook_id: newId }, refs);
      return newId;
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw unknownWorkspace(input.workspace_id);
    throw error;
  }
  return getRunbook(deps, id);
}

/**
 * Changes a runbook's name, description and/or custom field values (omitted fields are kept;
 * a value entry with `value: null` removes that field's value).
 * @throws {AppError} 404; 403 without workspace_manager for its workspace; 422 custom field value codes.
 */
export async function updateRunbook(
  deps: CatalogDeps,
  principal: Principal,
  id: number,
  input: {
    name?: string | undefined;
    description?: string | undefined;
    custom_field_values?: FieldValueInput | undefined;
  },
): Promise<RunbookDetailDto> {
  const row = await findRunbookOr404(deps, id);
  assertCanManageWorkspace(principal, row.workspace_id, { type: 'runbook', id: String(id) });
  if (input.custom_field_values)
    await checkFieldValues(deps, 'runbook', input.custom_field_values, FIELD_VALUES_POINTER);
  const changes: RunbookUpdate = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (Object.keys(changes).length === 0 && !input.custom_field_values) return toRunbookDto(row);
  await deps.db.transaction().execute(async (trx) => {
    if (input.custom_field_values) {
      // Read again under the transaction so concurrent value edits merge instead of overwriting.
      const current = await repo.findRunbookById(trx, id);
      const values = mergeFieldValues(current?.custom_field_values ?? null, input.custom_field_values);
      changes.custom_field_values = serializeFieldValues(values);
      await replaceFieldReferences(trx, { type: 'runbook', runbook_id: id }, fieldReferences(values));
    }
    await repo.updateRunbook(trx, id, { ...changes, updated_at: deps.now() });
  });
  return getRunbook(deps, id);
}

/**
 * Deletes a runbook with all its tasks.
 * @throws {AppError} 404; 403 without workspace_manager for its workspace.
 */
export async function deleteRunbook(deps: CatalogDeps, principal: Principal, id: number): Promise<void> {
  const row = await findRunbookOr404(deps, id);
  assertCanManageWorkspace(principal, row.workspace_id, { type: 'runbook', id: String(id) });
  await repo.deleteRunbook(deps.db, id);
}
