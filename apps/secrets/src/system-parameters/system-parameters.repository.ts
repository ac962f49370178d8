/** The only code that touches the system_parameters and system_parameter_audit tables. */
import { insertReturningId, type KeysetSort, type PageInput, paginate, sql } from '@runbook/db';
import type { Kysely } from 'kysely';
import type {
  Database,
  NewSystemParameterAuditRow,
  NewSystemParameterRow,
  SystemParameterRow,
} from '../db/database.js';

type Db = Kysely<Database>;

/** What resolution needs of a parameter (and what the cache holds, renamed). */
export type SealedParameterRow = Pick<
  SystemParameterRow,
  'name' | 'value_ciphertext' | 'key_id' | 'version' | 'secret'
>;

/** The row with `id`, or undefined. */
export const findParameterById = (db: Db, id: number): Promise<SystemParameterRow | undefined> =>
  db.selectFrom('system_parameters').selectAll().where('id', '=', id).executeTakeFirst();

/** The row named `name`, or undefined. */
export const findParameterByName = (db: Db, name: string): Promise<SystemParameterRow | undefined> =>
  db.selectFrom('system_parameters').selectAll().where('name', '=', name).executeTakeFirst();

/** The parameters among `names`, in one query (`WHERE name IN (…)`). */
export function findSealedParameters(db: Db, names: readonly string[]): Promise<SealedParameterRow[]> {
  if (names.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('system_parameters')
    .select(['name', 'value_ciphertext', 'key_id', 'version', 'secret'])
    .where('name', 'in', names)
    .execute();
}

/** Parameters whose name starts with `namePrefix` (if given), by name then id. */
export function listParameters(db: Db, filters: { namePrefix?: string | undefined }, page: PageInput) {
  let q = db.selectFrom('system_parameters').selectAll();
  if (filters.namePrefix) {
    // `!` as the LIKE escape character behaves the same on MySQL and SQLite (a backslash does not).
    const pattern = `${filters.namePrefix.replace(/[!%_]/g, (c) => `!${c}`)}%`;
    q = q.where(sql<boolean>`name like ${pattern} escape '!'`);
  }
  const sort: KeysetSort = {
    column: 'system_parameters.name',
    key: 'name',
    direction: 'asc',
    idColumn: 'system_parameters.id',
    idKey: 'id',
  };
  return paginate(q, sort, page);
}

/** How many parameters exist. */
export async function countParameters(db: Db): Promise<number> {
  const row = await db
    .selectFrom('system_parameters')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Makes parameter creations take turns until the calling transaction ends: writes the `create` row
 * of `system_parameter_locks` (a row lock held until commit or rollback on MySQL; SQLite runs one
 * write transaction at a time). Call it first in the transaction, then {@link countParameters}: the
 * count then includes every creation committed before, so a limit checked on it is exact.
 */
export async function lockParameterCreation(db: Db, now: number): Promise<void> {
  await db.updateTable('system_parameter_locks').set({ acquired_at: now }).where('name', '=', 'create').execute();
}

/** Inserts a parameter row. @returns its id. @throws the driver's unique violation for a taken name (see `isUniqueViolation`). */
export const insertParameter = (db: Db, row: NewSystemParameterRow): Promise<number> =>
  insertReturningId(db, 'system_parameters', row);

/**
 * Applies `changes` only if the row still has `version` (optimistic concurrency, atomic).
 * @returns `true` when the row was updated.
 */
export async function updateParameterIfVersion(
  db: Db,
  id: number,
  version: number,
  changes: Partial<Omit<NewSystemParameterRow, 'id' | 'name' | 'created_at'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('system_parameters')
    .set(changes)
    .where('id', '=', id)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** @returns `true` when the row existed. */
export async function deleteParameter(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('system_parameters').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Appends an audit entry (call in the transaction of the change it records). */
export async function insertAuditEntry(db: Db, row: NewSystemParameterAuditRow): Promise<void> {
  await db.insertInto('system_parameter_audit').values(row).execute();
}

/** Audit entries (of one parameter id and/or name if given), newest first. */
export function listAuditEntries(
  db: Db,
  filters: { parameterId?: number | undefined; parameterName?: string | undefined },
  page: PageInput,
) {
  let q = db.selectFrom('system_parameter_audit').selectAll();
  if (filters.parameterId !== undefined) q = q.where('parameter_id', '=', filters.parameterId);
  if (filters.parameterName !== undefined) q = q.where('parameter_name', '=', filters.parameterName);
  const sort: KeysetSort = {
    column: 'system_parameter_audit.id',
    key: 'id',
    direction: 'desc',
    idColumn: 'system_parameter_audit.id',
    idKey: 'id',
  };
  return paginate(q, sort, page);
}

/** Up to `limit` rows encrypted under a key other than `keyId`, with id above `afterId`, by id. */
export const findRowsNotUnderKey = (db: Db, keyId: string, afterId: number, limit: number) =>
  db
    .selectFrom('system_parameters')
    .select(['id', 'name', 'value_ciphertext', 'key_id', 'version'])
    .where('key_id', '<>', keyId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();

/** How many rows are encrypted under a key other than `keyId`. */
export async function countRowsNotUnderKey(db: Db, keyId: string): Promise<number> {
  const row = await db
    .selectFrom('system_parameters')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('key_id', '<>', keyId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Replaces a row's ciphertext (re-encryption) if it still has `version` and `oldKeyId`; the version
 * is kept because the value did not change.
 * @returns `true` when the row was updated.
 */
export async function replaceCiphertextIfUnchanged(
  db: Db,
  row: { id: number; version: number; oldKeyId: string },
  sealed: { ciphertext: string; keyId: string },
): Promise<boolean> {
  const result = await db
    .updateTable('system_parameters')
    .set({ value_ciphertext: sealed.ciphertext, key_id: sealed.keyId })
    .where('id', '=', row.id)
    .where('version', '=', row.version)
    .where('key_id', '=', row.oldKeyId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
