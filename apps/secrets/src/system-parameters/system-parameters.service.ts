/**
 * System parameters (DESIGN §5): rules, encryption, audit and DTO mapping. Values are encrypted
 * before they reach the database; secret values are write-only (every DTO carries `value: null`
 * for them) and no error detail ever includes a value.
 */
import {
  AppError,
  type AuditEntryDto,
  conflict,
  notFound,
  type Page,
  type Principal,
  SYSTEM_PARAMETER_VALUE_MAX_BYTES,
  type SystemParameterDto,
  unprocessable,
} from '@runbook/contracts';
import { isoOf, isUniqueViolation, type PageInput } from '@runbook/db';
import { decryptValue, encryptValue } from '../crypto/encryption.js';
import type { SystemParameterAuditRow, SystemParameterRow } from '../db/database.js';
import type { SecretsDeps } from '../deps.js';
import { invalidateParameters } from './parameter-cache.js';
import * as repo from './system-parameters.repository.js';

function toDto(deps: SecretsDeps, row: SystemParameterRow): SystemParameterDto {
  const secret = Boolean(row.secret);
  return {
    id: String(row.id),
    name: row.name,
    display_name: row.display_name,
    description: row.description,
    secret,
    value: secret
      ? null
      : decryptValue(deps.keyring, row.name, { ciphertext: row.value_ciphertext, keyId: row.key_id }),
    version: Number(row.version),
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
    updated_by: row.updated_by,
  };
}

const toAuditDto = (row: SystemParameterAuditRow): AuditEntryDto => ({
  id: String(row.id),
  parameter_id: String(row.parameter_id),
  parameter_name: row.parameter_name,
  action: row.action,
  actor: row.actor,
  old_version: row.old_version === null ? null : Number(row.old_version),
  new_version: row.new_version === null ? null : Number(row.new_version),
  created_at: isoOf(row.created_at),
});

/** `payments_api_key` → `Payments api key`. */
const displayNameOf = (name: string) => {
  const words = name.replace(/_+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** Audit actor: the user id, or `service:<name>`. */
const actorOf = (principal: Principal) =>
  principal.kind === 'user' ? principal.user_id : `service:${principal.service}`;
const updatedByOf = (principal: Principal) => (principal.kind === 'user' ? principal.user_id : null);

function assertValueSize(value: string): void {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > SYSTEM_PARAMETER_VALUE_MAX_BYTES) {
    throw new AppError(
      413,
      'value_too_large',
      `The value is ${bytes} bytes of UTF-8; the maximum is ${SYSTEM_PARAMETER_VALUE_MAX_BYTES} bytes.`,
      { source: { pointer: '/data/attributes/value' } },
    );
  }
}

/** A numeric string is an id, anything else a system name. */
async function findRow(deps: SecretsDeps, idOrName: string): Promise<SystemParameterRow> {
  const row = /^[1-9][0-9]{0,15}$/.test(idOrName)
    ? await repo.findParameterById(deps.db, Number(idOrName))
    : await repo.findParameterByName(deps.db, idOrName);
  if (!row) throw notFound('system_parameter', idOrName);
  return row;
}

/**
 * One parameter by id (numeric string) or system name.
 * @returns the DTO (`value` null when secret).
 * @throws {AppError} 404 `not_found`.
 */
export async function getParameter(deps: SecretsDeps, idOrName: string): Promise<SystemParameterDto> {
  return toDto(deps, await findRow(deps, idOrName));
}

/**
 * Parameters whose name starts with `name_prefix`, by name (keyset cursor in `next_cursor`).
 * @throws {AppError} 400 for a cursor this server did not produce.
 */
export async function listParameters(
  deps: SecretsDeps,
  filters: { name_prefix?: string | undefined },
  page: PageInput,
): Promise<Page<SystemParameterDto>> {
  const result = await repo.listParameters(deps.db, { namePrefix: filters.name_prefix }, page);
  return { ...result, items: result.items.map((row) => toDto(deps, row)) };
}

/** Input of {@link createParameter} (SystemParameterCreateAttributes after defaults). */
export interface CreateParameterInput {
  name: string;
  display_name?: string | undefined;
  description: string;
  value: string;
  secret: boolean;
}

/**
 * Creates a parameter at version 1 (value encrypted with the active key) and audits it.
 * @returns the DTO (`value` null when secret).
 * @throws {AppError} 413 `value_too_large` beyond SYSTEM_PARAMETER_VALUE_MAX_BYTES bytes of UTF-8;
 *   422 `parameter_limit_reached` when the instance holds `config.maxParameters` already (exact
 *   under concurrency: creations take turns on a row lock and count inside their transaction);
 *   409 `name_taken` when the name exists.
 */
export async function createParameter(
  deps: SecretsDeps,
  principal: Principal,
  input: CreateParameterInput,
): Promise<SystemParameterDto> {
  assertValueSize(input.value);
  const now = deps.now();
  const sealed = encryptValue(deps.keyring, input.name, input.value);
  let id: number;
  try {
    id = await deps.db.transaction().execute(async (trx) => {
      await repo.lockParameterCreation(trx, now);
      if ((await repo.countParameters(trx)) >= deps.config.maxParameters) {
        throw unprocessable(
          'parameter_limit_reached',
          `This instance holds the maximum of ${deps.config.maxParameters} system parameters (SECRETS_MAX_PARAMETERS); delete unused ones first.`,
        );
      }
      const newId = await repo.insertParameter(trx, {
        name: input.name,
        display_name: input.display_name ?? displayNameOf(input.name),
        description: input.description,
        secret: input.secret ? 1 : 0,
        value_ciphertext: sealed.ciphertext,
        key_id: sealed.keyId,
        version: 1,
        created_at: now,
        updated_at: now,
        updated_by: updatedByOf(principal),
      });
      await repo.insertAuditEntry(trx, {
        parameter_id: newId,
        parameter_name: input.name,
        action: 'create',
        actor: actorOf(principal),
        old_version: null,
        new_version: 1,
        created_at: now,
      });
      return newId;
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict('name_taken', `A system parameter named ${input.name} already exists.`);
    throw error;
  }
  // A name deleted and created again may still be cached by another replica's racing read.
  await invalidateParameters(deps, [input.name]);
  return getParameter(deps, String(id));
}

/** Input of {@link updateParameter}; omitted fields are kept. */
export interface UpdateParameterInput {
  id_or_name: string;
  /** Must equal the stored name if given: names are immutable. */
  name?: string | undefined;
  display_name?: string | undefined;
  description?: string | undefined;
  /** Omitted = keep the stored value. */
  value?: string | undefined;
  /** The version the caller read (`meta.expected_version` over REST); a stale one is 409 `version_conflict`. */
  expected_version?: number | undefined;
  /**
   * The version from an HTTP `If-Match: "<version>"` precondition; a stale one is 412
   * `precondition_failed`. When both are given, both must match.
   */
  if_match_version?: number | undefined;
}

const UPDATE_ATTEMPTS = 3;

/**
 * Changes display name, description and/or value; each change increments `version` by one. The
 * version check is atomic (`UPDATE … WHERE id = ? AND version = ?`). A call changing nothing
 * returns the parameter unchanged (after checking the preconditions). Without a precondition, a
 * concurrent write is retried on the new version (last writer wins).
 * @returns the updated DTO (`value` null when secret).
 * @throws {AppError} 404; 422 `name_immutable` when `name` differs from the stored one;
 *   409 `version_conflict` when `expected_version` is stale (or concurrent writers keep winning);
 *   412 `precondition_failed` when `if_match_version` is stale; 413 `value_too_large`.
 */
export async function updateParameter(
  deps: SecretsDeps,
  principal: Principal,
  input: UpdateParameterInput,
): Promise<SystemParameterDto> {
  if (input.value !== undefined) assertValueSize(input.value);
  for (let attempt = 1; ; attempt++) {
    const row = await findRow(deps, input.id_or_name);
    if (input.name !== undefined && input.name !== row.name) {
      throw unprocessable(
        'name_immutable',
        'A system parameter\u2019s name cannot be changed; create a parameter with the new name and delete this one.',
        '/data/attributes/name',
      );
    }
    const current = Number(row.version);
    if (input.if_match_version !== undefined && input.if_match_version !== current)
      throw preconditionFailed(input.if_match_version, current);
    if (input.expected_version !== undefined && input.expected_version !== current)
      throw versionConflict(input.expected_version, current);
    const expected = current;
    if (input.display_name === undefined && input.description === undefined && input.value === undefined)
      return toDto(deps, row);

    const now = deps.now();
    const newVersion = expected + 1;
    const sealed = input.value === undefined ? undefined : encryptValue(deps.keyring, row.name, input.value);
    const updated = await deps.db.transaction().execute(async (trx) => {
      const ok = await repo.updateParameterIfVersion(trx, row.id, expected, {
        ...(input.display_name === undefined ? {} : { display_name: input.display_name }),
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(sealed ? { value_ciphertext: sealed.ciphertext, key_id: sealed.keyId } : {}),
        version: newVersion,
        updated_at: now,
        updated_by: updatedByOf(principal),
      });
      if (ok) {
        await repo.insertAuditEntry(trx, {
          parameter_id: row.id,
          parameter_name: row.name,
          action: 'update',
          actor: actorOf(principal),
          old_version: expected,
          new_version: newVersion,
          created_at: now,
        });
      }
      return ok;
    });
    if (updated) {
      await invalidateParameters(deps, [row.name]);
      return getParameter(deps, String(row.id));
    }
    // Someone else changed (or deleted) the row between our read and our update.
    if (input.if_match_version !== undefined) {
      throw preconditionFailed(expected, Number((await findRow(deps, String(row.id))).version));
    }
    if (input.expected_version !== undefined || attempt >= UPDATE_ATTEMPTS) {
      throw versionConflict(expected, Number((await findRow(deps, String(row.id))).version));
    }
  }
}

const versionConflict = (expected: number, current: number) =>
  conflict(
    'version_conflict',
    `The system parameter was changed by someone else: expected version ${expected}, current version ${current}. Read it again and retry.`,
    { expected_version: expected, current_version: current },
  );

const preconditionFailed = (expected: number, current: number) =>
  new AppError(
    412,
    'precondition_failed',
    `If-Match does not match: it names version ${expected}, the current version is ${current}. Read the parameter again and retry with If-Match: "${current}".`,
    { source: { header: 'If-Match' }, meta: { expected_version: expected, current_version: current } },
  );

/**
 * Deletes a parameter and audits it; templates referencing it stop resolving at once.
 * @throws {AppError} 404.
 */
export async function deleteParameter(deps: SecretsDeps, principal: Principal, idOrName: string): Promise<void> {
  const row = await findRow(deps, idOrName);
  const now = deps.now();
  const deleted = await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.deleteParameter(trx, row.id))) return false;
    await repo.insertAuditEntry(trx, {
      parameter_id: row.id,
      parameter_name: row.name,
      action: 'delete',
      actor: actorOf(principal),
      old_version: Number(row.version),
      new_version: null,
      created_at: now,
    });
    return true;
  });
  if (!deleted) throw notFound('system_parameter', idOrName);
  await invalidateParameters(deps, [row.name]);
}

/**
 * Audit entries, newest first: all, or of one parameter by id (`parameter_id`, also after its
 * deletion) and/or by name (`parameter_name`: every parameter that ever had the name). Entries
 * never hold values.
 * @throws {AppError} 400 for a cursor this server did not produce.
 */
export async function listAuditEntries(
  deps: SecretsDeps,
  filters: { parameter_id?: string | undefined; parameter_name?: string | undefined },
  page: PageInput,
): Promise<Page<AuditEntryDto>> {
  const result = await repo.listAuditEntries(
    deps.db,
    {
      parameterId: filters.parameter_id === undefined ? undefined : Number(filters.parameter_id),
      parameterName: filters.parameter_name,
    },
    page,
  );
  return { ...result, items: result.items.map(toAuditDto) };
}
