/** What other services import from secrets: a typed client (`import { createSecretsClient } from '@runbook/secrets/client'`). */
import { AppError, type ErrorObject, errorTitles, type TemplateValidation } from '@runbook/contracts';
import { createServiceClient } from '@runbook/rpc';
import type { SecretsRouter } from './router.js';

/**
 * A typed tRPC client for the secrets service at `baseUrl` (e.g. `http://127.0.0.1:4002`),
 * presenting `serviceCredential` unless a call forwards another credential
 * (`client.systemParameters.get.query(input, { context: { credential } })`).
 */
export const createSecretsClient = (baseUrl: string, serviceCredential: string) =>
  createServiceClient<SecretsRouter>(baseUrl, serviceCredential);
/** The client's type (e.g. for another service's deps). */
export type SecretsClient = ReturnType<typeof createSecretsClient>;

/**
 * The 422 a service should answer when `resolution.validate` found problems in the templates it
 * was about to store, or `null` when they are valid. One error object per problem, in template
 * order, each pointing at the template's `pointer` (as sent to validate; `/templates/<index>`
 * otherwise) and keeping its `code` (`invalid_template`, `invalid_header_value`,
 * `temporary_credentials_not_allowed`, `unknown_system_parameters` with `meta.missing`).
 *
 * @example
 *   const problem = templateValidationError(await secrets.resolution.validate.mutate({ templates }));
 *   if (problem) throw problem;
 */
export function templateValidationError(result: TemplateValidation): AppError | null {
  if (result.errors.length === 0) return null;
  const objects: ErrorObject[] = result.errors.map((e) => ({
    status: '422',
    code: e.code,
    title: errorTitles[422],
    detail: e.detail,
    source: { pointer: e.pointer ?? `/templates/${e.index}` },
    ...(e.meta ? { meta: e.meta } : {}),
  }));
  const [first, ...more] = objects as [ErrorObject, ...ErrorObject[]];
  return new AppError(422, first.code, first.detail, {
    ...(first.source ? { source: first.source } : {}),
    ...(first.meta ? { meta: first.meta } : {}),
    more,
  });
}
