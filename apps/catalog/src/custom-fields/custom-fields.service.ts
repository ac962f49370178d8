/**
 * Custom field definitions (`text`, `textarea`, `select`, `temporary_credentials`) and the rules
 * for their values on tasks and runbooks. Text values may hold `{{system.*}}` references, validated
 * by the secrets service when saved; a `temporary_credentials` value may not reference system
 * parameters at all (secrets' rule, reported as 422 `temporary_credentials_not_allowed`).
 */
import {
  type CustomFieldDto,
  type CustomFieldValue,
  conflict,
  type customFieldCreateAttributes,
  notFound,
  type Page,
  unprocessable,
} from '@runbook/contracts';
import { isoOf, isUniqueViolation, type PageInput } from '@runbook/db';
import type { z } from 'zod';
import type { CustomFieldRow } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { assertValidTemplates, mayReference, type PointedTemplate, referencedNames } from '../templates.js';
import * as repo from './custom-fields.repository.js';

function toCustomFieldDto(row: CustomFieldRow): CustomFieldDto {
  return {
    id: String(row.id),
    name: row.name,
    description: row.description,
    field_type: row.field_type as CustomFieldDto['field_type'],
    applies_to: row.applies_to as CustomFieldDto['applies_to'],
    options: JSON.parse(row.options) as string[],
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
  };
}

/** @throws {AppError} 404. */
export async function getCustomField(deps: CatalogDeps, id: number): Promise<CustomFieldDto> {
  const row = await repo.findCustomField(deps.db, id);
  if (!row) throw notFound('custom_field', String(id));
  return toCustomFieldDto(row);
}

/** A page of definitions by id. @throws {AppError} 400 `invalid_cursor`. */
export async function listCustomFields(deps: CatalogDeps, page: PageInput): Promise<Page<CustomFieldDto>> {
  const result = await repo.listCustomFields(deps.db, page);
  return { ...result, items: result.items.map(toCustomFieldDto) };
}

const nameTaken = (name: string) =>
  conflict('name_taken', `A custom field named ${JSON.stringify(name)} already exists.`);

function checkOptions(fieldType: string, options: string[]): void {
  if (fieldType === 'select' && options.length === 0)
    throw unprocessable('options_required', 'A select field needs at least one option.', '/data/attributes/options');
  if (fieldType !== 'select' && options.length > 0)
    throw unprocessable('options_not_allowed', 'Only select fields have options.', '/data/attributes/options');
  if (new Set(options).size !== options.length)
    throw unprocessable('duplicate_option', 'Options must be distinct.', '/data/attributes/options');
}

/**
 * Creates a definition.
 * @throws {AppError} 409 `name_taken`; 422 `options_required` / `options_not_allowed` / `duplicate_option`.
 */
export async function createCustomField(
  deps: CatalogDeps,
  input: z.output<typeof customFieldCreateAttributes>,
): Promise<CustomFieldDto> {
  checkOptions(input.field_type, input.options);
  const now = deps.now();
  try {
    const id = await repo.insertCustomField(deps.db, {
      name: input.name,
      description: input.description,
      field_type: input.field_type,
      applies_to: input.applies_to,
      options: JSON.stringify(input.options),
      created_at: now,
      updated_at: now,
    });
    return await getCustomField(deps, id);
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name);
    throw error;
  }
}

/**
 * Renames, re-describes or changes the options of a definition (its type is fixed; values already
 * stored are kept even if an option is removed).
 * @throws {AppError} 404; 409 `name_taken`; 422 option rules.
 */
export async function updateCustomField(
  deps: CatalogDeps,
  id: number,
  input: { name?: string | undefined; description?: string | undefined; options?: string[] | undefined },
): Promise<CustomFieldDto> {
  const row = await repo.findCustomField(deps.db, id);
  if (!row) throw notFound('custom_field', String(id));
  if (input.options !== undefined) checkOptions(row.field_type, input.options);
  try {
    await repo.updateCustomField(deps.db, id, {
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.options === undefined ? {} : { options: JSON.stringify(input.options) }),
      updated_at: deps.now(),
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name ?? row.name);
    throw error;
  }
  return getCustomField(deps, id);
}

/** Custom field values as sent: `value: null` removes the field's value. */
export type FieldValueInput = Array<{ custom_field_id: string; value: string | null }>;

/**
 * Checks values to be set on a task or runbook: the field exists and applies to the subject, a
 * select value is one of its options, and text values' templates pass the secrets service's checks.
 * Call before the write transaction (it may call secrets over HTTP).
 * @param pointer JSON pointer of the values array in the request (e.g. `/data/attributes/custom_field_values`).
 * @throws {AppError} 422 `unknown_custom_field`, `custom_field_not_applicable`, `invalid_option`,
 *   `duplicate_custom_field`, `temporary_credentials_not_allowed`, `invalid_template`,
 *   `unknown_system_parameters`; 503 `secrets_unavailable`.
 */
export async function checkFieldValues(
  deps: CatalogDeps,
  subject: 'task' | 'runbook',
  input: FieldValueInput,
  pointer: string,
): Promise<void> {
  if (input.length === 0) return;
  const ids = input.map((v) => Number(v.custom_field_id));
  if (new Set(ids).size !== ids.length)
    throw unprocessable('duplicate_custom_field', 'Each custom field may appear once.', pointer);
  const defs = new Map((await repo.findCustomFields(deps.db, ids)).map((d) => [d.id, d]));
  const templates: PointedTemplate[] = [];
  input.forEach((entry, i) => {
    const def = defs.get(Number(entry.custom_field_id));
    const at = `${pointer}/${i}`;
    if (!def)
      throw unprocessable(
        'unknown_custom_field',
        `No custom field with id "${entry.custom_field_id}".`,
        `${at}/custom_field_id`,
      );
    if (def.applies_to !== 'all' && def.applies_to !== subject)
      throw unprocessable(
        'custom_field_not_applicable',
        `Custom field ${def.id} (${def.name}) applies to ${def.applies_to}s only.`,
        `${at}/custom_field_id`,
      );
    if (entry.value === null) return;
    if (def.field_type === 'select') {
      const options = JSON.parse(def.options) as string[];
      if (!options.includes(entry.value))
        throw unprocessable(
          'invalid_option',
          `Custom field ${def.id} (${def.name}) accepts only: ${options.join(', ')}.`,
          `${at}/value`,
          { options },
        );
      return;
    }
    if (mayReference(entry.value))
      templates.push({ template: entry.value, context: 'text', field_type: def.field_type, pointer: `${at}/value` });
  });
  await assertValidTemplates(deps, templates);
}

/** Applies `input` to the stored values (JSON), by field id; returns the new list sorted by field id. */
export function mergeFieldValues(stored: string | null, input: FieldValueInput): CustomFieldValue[] {
  const values = new Map<string, string>();
  for (const v of parseFieldValues(stored)) values.set(v.custom_field_id, v.value);
  for (const v of input) {
    if (v.value === null) values.delete(v.custom_field_id);
    else values.set(v.custom_field_id, v.value);
  }
  return [...values]
    .map(([custom_field_id, value]) => ({ custom_field_id, value }))
    .sort((a, b) => Number(a.custom_field_id) - Number(b.custom_field_id));
}

/** Stored values (JSON column) as a list. */
export const parseFieldValues = (stored: string | null): CustomFieldValue[] =>
  stored ? (JSON.parse(stored) as CustomFieldValue[]) : [];

/** The values as stored (null for none). */
export const serializeFieldValues = (values: CustomFieldValue[]): string | null =>
  values.length === 0 ? null : JSON.stringify(values);

/** Where-used rows of `values`: one per (field, referenced parameter name). */
export const fieldReferences = (values: CustomFieldValue[]) =>
  values.flatMap((v) => referencedNames(v.value).map((name) => ({ custom_field_id: Number(v.custom_field_id), name })));
