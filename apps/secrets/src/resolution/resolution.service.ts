/**
 * Resolution of `{{system.*}}` templates (DESIGN §5): for execution (plaintext, internal only), as
 * a masked preview, and as a save-time validation. Every call loads the referenced parameters with
 * one cache round trip (plus one database query for misses), see `parameter-cache.ts`.
 */
import { AppError, type TemplateContext } from '@runbook/contracts';
import { decryptValue } from '../crypto/encryption.js';
import type { SecretsDeps } from '../deps.js';
import { loadSealedParameters } from '../system-parameters/parameter-cache.js';
import { type CompiledTemplate, compileTemplate, mentionsSystemParameters, unknownParameters } from './template.js';

/** How secret values appear in previews. */
export const MASK = '\u2022\u2022\u2022\u2022';

/** Custom field type whose templates may not reference system parameters. */
export const TEMPORARY_CREDENTIALS = 'temporary_credentials';
/** Detail of the `temporary_credentials_not_allowed` validation error. */
export const TEMPORARY_CREDENTIALS_MESSAGE =
  'Temporary credentials fields cannot reference system parameters; store the value as a system parameter and reference it from a text field or integration instead';

/** A template and the context it is used in. */
export interface TemplateInput {
  template: string;
  context: TemplateContext;
}

/** Runs `fn` for template `index`, pointing any AppError it throws at that template. */
function atTemplate<T>(index: number, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const [first] = error.errors;
    throw new AppError(error.status, error.code, `templates[${index}]: ${error.message}`, {
      source: { pointer: `/templates/${index}/template` },
      ...(first?.meta ? { meta: first.meta } : {}),
    });
  }
}

const distinctNames = (compiled: readonly CompiledTemplate[]) => [...new Set(compiled.flatMap((c) => c.names))];

/**
 * Resolves templates to plaintext for execution. All or nothing: nothing is returned unless every
 * reference of every template resolves.
 * @returns `results[i]` for `templates[i]`, and the `{name, version}` of every referenced parameter (sorted by name).
 * @throws {AppError} 422 `unknown_system_parameters` naming every missing parameter (detail and
 *   `meta.missing`); 422 `invalid_template` / `invalid_url` / `invalid_header_value` pointing at the
 *   template (`/templates/<i>/template`), never quoting a value.
 */
export async function resolveTemplates(
  deps: SecretsDeps,
  templates: readonly TemplateInput[],
): Promise<{ results: string[]; references: Array<{ name: string; version: number }> }> {
  const compiled = templates.map((t, i) => atTemplate(i, () => compileTemplate(t.template, t.context)));
  const names = distinctNames(compiled);
  const sealed = await loadSealedParameters(deps, names);
  const missing = names.filter((n) => !sealed.has(n));
  if (missing.length > 0) throw unknownParameters(missing);
  const values = new Map<string, string>();
  for (const [name, p] of sealed)
    values.set(name, decryptValue(deps.keyring, name, { ciphertext: p.ciphertext, keyId: p.key_id }));
  const results = compiled.map((c, i) => atTemplate(i, () => c.render(values)));
  const references = names.sort().map((name) => ({ name, version: (sealed.get(name) as { version: number }).version }));
  return { results, references };
}

/**
 * A template as it would resolve, with every secret value shown as `••••` (non-secret values in
 * full). With a secret referenced, the `url` result check is skipped (the mask is not a URL).
 * @returns `{result, references: [{name, version, secret}], missing}`; `result` is null when any name is missing.
 * @throws {AppError} 422 `invalid_template`, `invalid_header_value` (non-secret values), `invalid_url`.
 */
export async function previewTemplate(
  deps: SecretsDeps,
  input: TemplateInput,
): Promise<{
  result: string | null;
  references: Array<{ name: string; version: number; secret: boolean }>;
  missing: string[];
}> {
  const compiled = compileTemplate(input.template, input.context);
  const sealed = await loadSealedParameters(deps, compiled.names);
  const missing = compiled.names.filter((n) => !sealed.has(n)).sort();
  const references = [...sealed.entries()]
    .map(([name, p]) => ({ name, version: p.version, secret: p.secret }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  if (missing.length > 0) return { result: null, references, missing };
  const values = new Map<string, string>();
  for (const [name, p] of sealed)
    values.set(name, p.secret ? MASK : decryptValue(deps.keyring, name, { ciphertext: p.ciphertext, keyId: p.key_id }));
  const result = compiled.render(values, { checkUrl: !references.some((r) => r.secret) });
  return { result, references, missing };
}

/** A template to validate, with the custom field type it belongs to. */
export interface ValidationInput extends TemplateInput {
  /** The custom field type the template belongs to; `temporary_credentials` may not reference system parameters. */
  field_type?: string | undefined;
}

/**
 * Save-time check of templates: syntax per context, field-type rules, and unknown names. Never
 * reads a value.
 * @returns `{valid, missing (sorted), errors: [{index, code, detail}]}`; `valid` is true when both lists are empty.
 */
export async function validateTemplates(
  deps: SecretsDeps,
  templates: readonly ValidationInput[],
): Promise<{ valid: boolean; missing: string[]; errors: Array<{ index: number; code: string; detail: string }> }> {
  const errors: Array<{ index: number; code: string; detail: string }> = [];
  const compiled: CompiledTemplate[] = [];
  templates.forEach((t, index) => {
    if (t.field_type === TEMPORARY_CREDENTIALS && mentionsSystemParameters(t.template)) {
      errors.push({ index, code: 'temporary_credentials_not_allowed', detail: TEMPORARY_CREDENTIALS_MESSAGE });
      return;
    }
    try {
      compiled.push(compileTemplate(t.template, t.context));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      errors.push({ index, code: error.code, detail: error.message });
    }
  });
  const names = distinctNames(compiled);
  const sealed = await loadSealedParameters(deps, names);
  const missing = names.filter((n) => !sealed.has(n)).sort();
  return { valid: errors.length === 0 && missing.length === 0, missing, errors };
}
