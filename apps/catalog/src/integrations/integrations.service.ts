/**
 * Integrations: HTTP requests whose URL, header values and JSON body may hold `{{system.*}}`
 * references. Templates are validated by the secrets service when saved (unknown parameters are
 * a 422 naming them) and their referenced names indexed for where-used; values are injected only
 * when a task runs the integration (see `orchestration/integration-runner.ts`).
 */
import {
  conflict,
  type IntegrationDto,
  type integrationCreateAttributes,
  notFound,
  type Page,
  unprocessable,
} from '@runbook/contracts';
import { isoOf, isUniqueViolation, type PageInput } from '@runbook/db';
import type { z } from 'zod';
import type { IntegrationRow } from '../db/database.js';
import type { CatalogDeps } from '../deps.js';
import { assertValidTemplates, type PointedTemplate, referencedNames } from '../templates.js';
import { replaceIntegrationReferences } from '../usages/references.repository.js';
import * as repo from './integrations.repository.js';

/** Header names an integration may not set: the HTTP client owns them (Idempotency-Key is the platform's). */
export const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'idempotency-key',
]);

/** An integration's stored request definition, parsed. */
export interface IntegrationSpec {
  method: string;
  url: string;
  headers: Array<{ name: string; value: string }>;
  body: string | null;
  timeout_ms: number;
  success_statuses: number[];
}

/** Parses the JSON columns of a row. */
export function specOf(row: IntegrationRow): IntegrationSpec {
  return {
    method: row.method,
    url: row.url_template,
    headers: JSON.parse(row.headers) as IntegrationSpec['headers'],
    body: row.body_template,
    timeout_ms: row.timeout_ms,
    success_statuses: JSON.parse(row.success_statuses) as number[],
  };
}

function toIntegrationDto(row: IntegrationRow): IntegrationDto {
  const spec = specOf(row);
  return {
    id: String(row.id),
    name: row.name,
    description: row.description,
    method: spec.method as IntegrationDto['method'],
    url: spec.url,
    headers: spec.headers,
    body: spec.body,
    timeout_ms: spec.timeout_ms,
    success_statuses: spec.success_statuses,
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
  };
}

/** @throws {AppError} 404 when integration `id` does not exist. */
export async function getIntegration(deps: CatalogDeps, id: number): Promise<IntegrationDto> {
  const row = await repo.findIntegration(deps.db, id);
  if (!row) throw notFound('integration', String(id));
  return toIntegrationDto(row);
}

/** A page of integrations by id. @throws {AppError} 400 `invalid_cursor`. */
export async function listIntegrations(deps: CatalogDeps, page: PageInput): Promise<Page<IntegrationDto>> {
  const result = await repo.listIntegrations(deps.db, page);
  return { ...result, items: result.items.map(toIntegrationDto) };
}

/**
 * Checks a request definition: header names, URL shape and every template (through secrets).
 * @returns the distinct referenced parameter names.
 * @throws {AppError} 422 `reserved_header`, `duplicate_header`, `invalid_url`, template codes, `unknown_system_parameters`.
 */
async function checkSpec(deps: CatalogDeps, spec: IntegrationSpec): Promise<string[]> {
  const seen = new Set<string>();
  spec.headers.forEach((h, i) => {
    const lower = h.name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) {
      throw unprocessable(
        'reserved_header',
        `The header ${h.name} is set by the platform and cannot be configured.`,
        `/data/attributes/headers/${i}/name`,
      );
    }
    if (seen.has(lower)) {
      throw unprocessable(
        'duplicate_header',
        `The header ${h.name} is given twice.`,
        `/data/attributes/headers/${i}/name`,
      );
    }
    seen.add(lower);
  });
  // A URL that does not start with a reference must visibly be http(s); the rest is checked at run time.
  if (!spec.url.trimStart().startsWith('{{') && !/^https?:\/\/[^\s]/i.test(spec.url.trim())) {
    throw unprocessable(
      'invalid_url',
      'The URL must be an absolute http:// or https:// URL (or start with a {{system.*}} reference).',
      '/data/attributes/url',
    );
  }
  const templates: PointedTemplate[] = [
    { template: spec.url, context: 'url', pointer: '/data/attributes/url' },
    ...spec.headers.map((h, i) => ({
      template: h.value,
      context: 'header' as const,
      pointer: `/data/attributes/headers/${i}/value`,
    })),
    ...(spec.body === null
      ? []
      : [{ template: spec.body, context: 'json' as const, pointer: '/data/attributes/body' }]),
  ];
  await assertValidTemplates(deps, templates);
  return [...new Set(templates.flatMap((t) => referencedNames(t.template)))];
}

const nameTaken = (name: string) =>
  conflict('name_taken', `An integration named ${JSON.stringify(name)} already exists.`);

/** Validated create input (defaults applied). */
export type CreateIntegrationInput = z.output<typeof integrationCreateAttributes>;

/**
 * Creates an integration after validating its templates.
 * @throws {AppError} 409 `name_taken`; 422 (see `checkSpec`); 503 `secrets_unavailable`.
 */
export async function createIntegration(deps: CatalogDeps, input: CreateIntegrationInput): Promise<IntegrationDto> {
  const spec: IntegrationSpec = {
    method: input.method,
    url: input.url,
    headers: input.headers,
    body: input.body,
    timeout_ms: input.timeout_ms,
    success_statuses: input.success_statuses,
  };
  const names = await checkSpec(deps, spec);
  const now = deps.now();
  let id: number;
  try {
    id = await deps.db.transaction().execute(async (trx) => {
      const newId = await repo.insertIntegration(trx, {
        name: input.name,
        description: input.description,
        method: spec.method,
        url_template: spec.url,
        headers: JSON.stringify(spec.headers),
        body_template: spec.body,
        timeout_ms: spec.timeout_ms,
        success_statuses: JSON.stringify(spec.success_statuses),
        created_at: now,
        updated_at: now,
      });
      await replaceIntegrationReferences(trx, newId, names);
      return newId;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name);
    throw error;
  }
  return getIntegration(deps, id);
}

/** Fields to change; omitted ones are kept. */
export type UpdateIntegrationInput = Partial<CreateIntegrationInput>;

/**
 * Changes the given fields; templates are re-validated when any request field changes. The next
 * execution of every task running it uses the new definition.
 * @throws {AppError} 404; 409 `name_taken`; 422; 503 `secrets_unavailable`.
 */
export async function updateIntegration(
  deps: CatalogDeps,
  id: number,
  input: UpdateIntegrationInput,
): Promise<IntegrationDto> {
  const row = await repo.findIntegration(deps.db, id);
  if (!row) throw notFound('integration', String(id));
  const current = specOf(row);
  const spec: IntegrationSpec = {
    method: input.method ?? current.method,
    url: input.url ?? current.url,
    headers: input.headers ?? current.headers,
    body: input.body === undefined ? current.body : input.body,
    timeout_ms: input.timeout_ms ?? current.timeout_ms,
    success_statuses: input.success_statuses ?? current.success_statuses,
  };
  const templatesChanged = input.url !== undefined || input.headers !== undefined || input.body !== undefined;
  const names = templatesChanged ? await checkSpec(deps, spec) : null;
  try {
    await deps.db.transaction().execute(async (trx) => {
      await repo.updateIntegration(trx, id, {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.description === undefined ? {} : { description: input.description }),
        method: spec.method,
        url_template: spec.url,
        headers: JSON.stringify(spec.headers),
        body_template: spec.body,
        timeout_ms: spec.timeout_ms,
        success_statuses: JSON.stringify(spec.success_statuses),
        updated_at: deps.now(),
      });
      if (names) await replaceIntegrationReferences(trx, id, names);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name ?? row.name);
    throw error;
  }
  return getIntegration(deps, id);
}

/**
 * Deletes an integration no task runs.
 * @throws {AppError} 404; 409 `integration_in_use` (`meta.task_ids`: up to 20 tasks running it).
 */
export async function deleteIntegration(deps: CatalogDeps, id: number): Promise<void> {
  if (!(await repo.findIntegration(deps.db, id))) throw notFound('integration', String(id));
  const users = await repo.findTaskIdsUsing(deps.db, id, 20);
  if (users.length > 0) {
    throw conflict(
      'integration_in_use',
      `Integration ${id} is used by tasks ${users.join(', ')}; change those tasks first.`,
      { task_ids: users.map(String) },
    );
  }
  await repo.deleteIntegration(deps.db, id);
}
