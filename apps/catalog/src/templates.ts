/**
 * Save-time handling of `{{system.*}}` templates in catalog: validation through the secrets service
 * (the grammar's authority) mapped to 422 errors that point at the offending field, and extraction of
 * the referenced names for the where-used index.
 */
import { AppError, type ErrorObject, errorTitles } from '@runbook/contracts';
import type { CatalogDeps } from './deps.js';
import type { TemplateCheck, TemplateToValidate } from './secrets-port.js';

// Mirrors the grammar of secrets' template.ts: `{{`, optional blanks, `system.<name>`, optional blanks, `}}`;
// a backslash right before `{{` escapes it. Only run on templates secrets has accepted.
const REFERENCE = /(\\?)\{\{[ \t]*system\.([a-z][a-z0-9_]{0,63})[ \t]*\}\}/g;

/** Distinct system parameter names referenced by `template`, in order of first appearance. */
export function referencedNames(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(REFERENCE)) if (!match[1] && match[2]) names.add(match[2]);
  return [...names];
}

/** `true` when `template` might reference a system parameter (cheap pre-check before asking secrets). */
export const mayReference = (template: string): boolean => template.includes('{{');

/** A template to validate and the JSON pointer of the field it came from. */
export interface PointedTemplate extends TemplateToValidate {
  pointer: string;
}

/**
 * Validates templates with the secrets service. Nothing is stored by the caller unless this returns.
 * The first error names the problem: a syntax or field-type problem (`invalid_template`,
 * `invalid_header_value`, `temporary_credentials_not_allowed`, …) pointing at its field, or else
 * `unknown_system_parameters` naming every unknown parameter of every template (`meta.missing`);
 * further errors point at each offending field.
 * @throws {AppError} 422 as above; 503 `secrets_unavailable`.
 */
export async function assertValidTemplates(deps: CatalogDeps, templates: PointedTemplate[]): Promise<void> {
  if (templates.length === 0) return;
  const check = await deps.secrets.validate(
    templates.map(({ template, context, field_type }) => ({
      template,
      context,
      ...(field_type === undefined ? {} : { field_type }),
    })),
  );
  const objectOf = (e: TemplateCheck['errors'][number]): ErrorObject => ({
    status: '422',
    code: e.code,
    title: errorTitles[422],
    detail: e.detail,
    source: { pointer: templates[e.index]?.pointer ?? '/data/attributes' },
    ...(e.meta ? { meta: e.meta } : {}),
  });
  const syntax = check.errors.filter((e) => e.code !== 'unknown_system_parameters').map(objectOf);
  const unknown = check.errors.filter((e) => e.code === 'unknown_system_parameters').map(objectOf);
  const problems = [...syntax];
  if (check.missing.length > 0) {
    const names = [...check.missing].sort();
    problems.push({
      status: '422',
      code: 'unknown_system_parameters',
      title: errorTitles[422],
      detail: `Unknown system parameter${names.length === 1 ? '' : 's'}: ${names.join(', ')}. Create ${names.length === 1 ? 'it' : 'them'} first or fix the references.`,
      source: unknown[0]?.source ?? { pointer: templates[0]?.pointer ?? '/data/attributes' },
      meta: { missing: names },
    });
    // With several templates, each one's own unknown names follow, pointing at its field.
    if (unknown.length > 1) problems.push(...unknown);
  }
  const [first, ...more] = problems;
  if (!first) return;
  throw new AppError(422, first.code, first.detail, {
    ...(first.source ? { source: first.source } : {}),
    ...(first.meta ? { meta: first.meta } : {}),
    more,
  });
}
