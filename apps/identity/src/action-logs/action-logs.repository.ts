/** The only code that touches the action_logs table. */
import { type KeysetSort, type PageInput, paginate } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Database, NewActionLogRow } from '../db/database.js';

type Db = Kysely<Database>;

/** Appends one audit record. */
export async function insertActionLog(db: Db, row: NewActionLogRow): Promise<void> {
  await db.insertInto('action_logs').values(row).execute();
}

/** Filters of {@link listActionLogs}; all optional, combined with AND. */
export interface ActionLogFilters {
  /** Events about this user or performed by them. */
  user_id?: number | undefined;
  event?: string | undefined;
  /** Epoch ms, inclusive. */
  created_after?: number | undefined;
  /** Epoch ms, exclusive. */
  created_before?: number | undefined;
}

const newestFirst: KeysetSort = {
  column: 'action_logs.id',
  key: 'id',
  direction: 'desc',
  idColumn: 'action_logs.id',
  idKey: 'id',
};

/** One page of action logs matching `filters`, newest first. @throws {InvalidCursorError} for a foreign cursor. */
export function listActionLogs(db: Db, filters: ActionLogFilters, page: PageInput) {
  let q = db.selectFrom('action_logs').selectAll();
  const userId = filters.user_id;
  if (userId !== undefined) q = q.where((eb) => eb.or([eb('user_id', '=', userId), eb('actor_id', '=', userId)]));
  if (filters.event !== undefined) q = q.where('event', '=', filters.event);
  if (filters.created_after !== undefined) q = q.where('created_at', '>=', filters.created_after);
  if (filters.created_before !== undefined) q = q.where('created_at', '<', filters.created_before);
  return paginate(q, newestFirst, page);
}
