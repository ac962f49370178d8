/** Workspaces: rules and DTO mapping. */
import { conflict, notFound, type Page, type WorkspaceDto } from '@runbook/contracts';
import { isoOf, isUniqueViolation, type PageInput } from '@runbook/db';
import type { WorkspaceRow } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import * as repo from './workspaces.repository.js';

function toWorkspaceDto(row: WorkspaceRow): WorkspaceDto {
  return {
    id: String(row.id),
    name: row.name,
    key: row.key,
    description: row.description,
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
  };
}

/** @throws {AppError} 404 when the workspace does not exist. */
export async function getWorkspace(deps: CatalogDeps, id: number): Promise<WorkspaceDto> {
  const row = await repo.findWorkspaceById(deps.db, id);
  if (!row) throw notFound('workspace', String(id));
  return toWorkspaceDto(row);
}

/** Workspaces by id; only those in `visible` unless it is `'all'`. @throws {AppError} 400 `invalid_cursor`. */
export async function listWorkspaces(
  deps: CatalogDeps,
  page: PageInput,
  visible: 'all' | number[] = 'all',
): Promise<Page<WorkspaceDto>> {
  const result = await repo.listWorkspaces(deps.db, page, visible === 'all' ? undefined : visible);
  return { ...result, items: result.items.map(toWorkspaceDto) };
}

export interface CreateWorkspaceInput {
  name: string;
  key?: string | undefined;
  description: string;
}

/** @throws {AppError} 409 `key_taken` when another workspace has the key. */
export async function createWorkspace(deps: CatalogDeps, input: CreateWorkspaceInput): Promise<WorkspaceDto> {
  const now = deps.now();
  let id: number;
  try {
    id = await repo.insertWorkspace(deps.db, {
      name: input.name,
      key: input.key ?? null,
      description: input.description,
      created_at: now,
      updated_at: now,
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict('key_taken', `A workspace with key ${input.key} already exists.`, { key: input.key });
    throw error;
  }
  return getWorkspace(deps, id);
}
