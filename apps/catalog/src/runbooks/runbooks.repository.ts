/** The only code that touches the runbooks table. */
import type { RunbookDto } from '@runbook/contracts';
import { dialectOf, insertReturningId, mysqlOnly, type PageInput, paginate } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Database, NewRunbookRow, RunbookRow, RunbookUpdate } from '../db/database.js';

type Db = Kysely<Database>;

export const findRunbookById = (db: Db, id: number): Promise<RunbookRow | undefined> =>
  db.selectFrom('runbooks').selectAll().where('id', '=', id).executeTakeFirst();

/**
 * The runbook's id and workspace, read inside transaction `trx`. On MySQL the row stays locked
 * (`FOR UPDATE`) until the transaction ends, so concurrent changes to one runbook's task graph take
 * turns; SQLite serialises write transactions anyway.
 */
export function lockRunbook(
  trx: Db,
  id: number,
): Promise<{ id: number; workspace_id: number; stage: RunbookDto['stage'] } | undefined> {
  const query = trx.selectFrom('runbooks').select(['id', 'workspace_id', 'stage']).where('id', '=', id);
  return (dialectOf(trx) === 'mysql' ? query.forUpdate() : query).executeTakeFirst();
}

export const insertRunbook = (db: Db, row: NewRunbookRow): Promise<number> => insertReturningId(db, 'runbooks', row);

export async function updateRunbook(db: Db, id: number, changes: RunbookUpdate): Promise<void> {
  await db.updateTable('runbooks').set(changes).where('id', '=', id).execute();
}

/** Deletes a runbook; its tasks and their predecessor links go with it (ON DELETE CASCADE). */
export async function deleteRunbook(db: Db, id: number): Promise<void> {
  await db.deleteFrom('runbooks').where('id', '=', id).execute();
}

export interface RunbookFilters {
  workspace_id?: number | undefined;
  /** Only runbooks of these workspaces (the caller's visible ones). */
  workspace_ids?: number[] | undefined;
  stage?: RunbookDto['stage'] | undefined;
  is_template?: boolean | undefined;
}

/** Columns a runbook list may be sorted by; the id breaks ties. */
export type RunbookSortField = 'name' | 'created_at' | 'id';

/**
 * One page of runbooks matching `filters`, keyset-paged on `(field, id)` in `direction`.
 * @throws {InvalidCursorError} for a foreign `page.after`.
 */
export function listRunbooks(
  db: Db,
  filters: RunbookFilters,
  sort: { field: RunbookSortField; direction: 'asc' | 'desc' },
  page: PageInput,
) {
  let query = db.selectFrom('runbooks').selectAll();
  if (filters.workspace_id !== undefined) query = query.where('workspace_id', '=', filters.workspace_id);
  // Id 0 is never a workspace: it keeps `in (…)` valid when no workspace is visible.
  if (filters.workspace_ids !== undefined) query = query.where('workspace_id', 'in', [0, ...filters.workspace_ids]);
  if (filters.stage !== undefined) query = query.where('stage', '=', filters.stage);
  if (filters.is_template !== undefined) query = query.where('is_template', '=', filters.is_template ? 1 : 0);
  // One workspace: cursor pages seek (workspace_id, sort column, id) — see KeysetSort.seekIndex.
  const seekIndex =
    filters.workspace_id === undefined || filters.workspace_ids !== undefined
      ? undefined
      : {
          id: 'runbooks_workspace_id',
          name: 'runbooks_workspace_name_id',
          created_at: 'runbooks_workspace_created_id',
        }[sort.field];
  return paginate(
    query,
    {
      column: `runbooks.${sort.field}`,
      key: sort.field,
      direction: sort.direction,
      idColumn: 'runbooks.id',
      idKey: 'id',
      seekIndex: seekIndex && mysqlOnly(dialectOf(db), seekIndex),
    },
    page,
  );
}
