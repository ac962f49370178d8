/**
 * Resolution of `{{system.*}}` templates (DESIGN §5): for execution (plaintext, internal only), as
 * a masked preview, and as a save-time validation. Every call loads the referenced parameters with
 * one cache round trip (plus one database query for misses), see `parameter-cache.ts`.
 */
import {
  AppError,
  type TemplateContext,
  type TemplateProblem,
  type TemplateValidation,
  unprocessable,
} from '@runbook/contracts';
import { DecryptionError, decryptValue } from '../crypto/encryption.js';
import type { SecretsDeps } from '../deps.js';
import {
  loadSealedParameters,
  reloadSealedParameters,
  type SealedParameter,
} from '../system-parameters/parameter-cache.js';
import { type CompiledTemplate, compileTemplate, mentionsSystemParameters, unknownParameters } from './template.js';

/** How secret values appear in previews. */
export const MASK = '\u2022\u2022\u2022\u2022';

/** Custom field type whose templates may not reference system parameters. */
export const TEMPORARY_CREDENTIALS = 'temporary_credentials';
/** Detail of the `temporary_credentials_not_allowed` validation error. */
export const TEMPORARY_CREDENTIALS_MESSAGE =
  'A Temporary credentials field cannot reference system parameters ({{system.…}}). Use a system parameter instead: store the value as one and reference it from a text field or an integration.';

/** A template, the context it is used in, and the custom field type it belongs to (if any). */
export interface TemplateInput {
  template: string;
  context: TemplateContext;
  /** The custom field type the template belongs to; `temporary_credentials` may not reference system parameters. */
  field_type?: string | undefined;
}

/** 422 `temporary_credentials_not_allowed`. */
const temporaryCredentialsError = () =>
  unprocessable('temporary_credentials_not_allowed', TEMPORARY_CREDENTIALS_MESSAGE);

/**
 * Parses a template for its context after applying the field-type rule.
 * @throws {AppError} 422 `temporary_credentials_not_allowed` for a `temporary_credentials` field
 *   mentioning a system parameter; the errors of {@link compileTemplate}.
 */
function compileFor(input: TemplateInput): CompiledTemplate {
  if (input.field_type === TEMPORARY_CREDENTIALS && mentionsSystemParameters(input.template))
    throw temporaryCredentialsError();
  return compileTemplate(input.template, input.context);
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

const open = (deps: SecretsDeps, name: string, p: SealedParameter) =>
  decryptValue(deps.keyring, name, { ciphertext: p.ciphertext, keyId: p.key_id });

/**
 * Loads the sealed parameters called `names` (one cache round trip, see `parameter-cache.ts`) and
 * decrypts those `wanted` selects. A value that does not decrypt is read once more from the
 * database with its cached entry dropped ({@link reloadSealedParameters}), so a bad cache entry
 * never fails a resolution; only a stored value that does not decrypt does.
 * @returns `sealed`: name → parameter (unknown names absent; a name deleted meanwhile too);
 *   `values`: name → plaintext of the wanted ones.
 * @throws {DecryptionError} when the stored value itself does not decrypt (a key missing from this
 *   replica's keyring): answered as a 500 without the value or key.
 */
async function loadAndOpen(
  deps: SecretsDeps,
  names: readonly string[],
  wanted: (p: SealedParameter) => boolean,
): Promise<{ sealed: Map<string, SealedParameter>; values: Map<string, string> }> {
  const sealed = await loadSealedParameters(deps, names);
  const values = new Map<string, string>();
  const failed: string[] = [];
  for (const [name, p] of sealed) {
    if (!wanted(p)) continue;
    try {
      values.set(name, open(deps, name, p));
    } catch (error) {
      if (!(error instanceof DecryptionError)) throw error;
      failed.push(name);
    }
  }
  if (failed.length === 0) return { sealed, values };
  deps.logger.warn({ parameters: failed }, 'system parameter values did not decrypt; read again from the database');
  const fresh = await reloadSealedParameters(deps, failed);
  for (const name of failed) {
    const p = fresh.get(name);
    if (!p) {
      sealed.delete(name);
      continue;
    }
    sealed.set(name, p);
    if (wanted(p)) values.set(name, open(deps, name, p));
  }
  return { sealed, values };
}

/**
 * Resolves templates to plaintext for execution. All or nothing: nothing is returned unless every
 * reference of every template resolves.
 * @returns `results[i]` for `templates[i]`, the `{name, version}` of every referenced parameter (sorted by name),
 *   and `secret_values`: the distinct non-empty plaintext values of the referenced secret parameters, so the
 *   caller can mask them (and their encodings) in anything it records.
 * @throws {AppError} 422 `unknown_system_parameters` naming every missing parameter (detail and
 *   `meta.missing`); 422 `invalid_template` / `invalid_url` / `invalid_header_value` /
 *   `temporary_credentials_not_allowed` pointing at the template (`/templates/<i>/template`), never
 *   quoting a value.
 */
export async function resolveTemplates(
  deps: SecretsDeps,
  templates: readonly TemplateInput[],
): Promise<{ results: string[]; references: Array<{ name: string; version: number }>; secret_values: string[] }> {
  const compiled = templates.map((t, i) => atTemplate(i, () => compileFor(t)));
  const names = distinctNames(compiled);
  const { sealed, values } = await loadAndOpen(deps, names, () => true);
  const missing = names.filter((n) => !sealed.has(n));
  if (missing.length > 0) throw unknownParameters(missing);
  const secretValues = new Set<string>();
  for (const [name, p] of sealed) {
    const value = values.get(name) as string;
    if (p.secret && value !== '') secretValues.add(value);
  }
  const results = compiled.map((c, i) => atTemplate(i, () => c.render(values)));
  const references = names.sort().map((name) => ({ name, version: (sealed.get(name) as { version: number }).version }));
  return { results, references, secret_values: [...secretValues] };
}

/**
 * A template as it would resolve, with every secret value shown as `••••` (non-secret values in
 * full). With a secret referenced, the `url` result check is skipped (the mask is not a URL).
 * @returns `{result, references: [{name, version, secret}], missing}`; `result` is null when any name is missing.
 * @throws {AppError} 422 `invalid_template`, `invalid_header_value` (non-secret values), `invalid_url`,
 *   `temporary_credentials_not_allowed`.
 */
export async function previewTemplate(
  deps: SecretsDeps,
  input: TemplateInput,
): Promise<{
  result: string | null;
  references: Array<{ name: string; version: number; secret: boolean }>;
  missing: string[];
}> {
  const compiled = compileFor(input);
  // Secret values are never decrypted for a preview.
  const { sealed, values: plain } = await loadAndOpen(deps, compiled.names, (p) => !p.secret);
  const missing = compiled.names.filter((n) => !sealed.has(n)).sort();
  const references = [...sealed.entries()]
    .map(([name, p]) => ({ name, version: p.version, secret: p.secret }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  if (missing.length > 0) return { result: null, references, missing };
  const values = new Map<string, string>();
  for (const [name, p] of sealed) values.set(name, p.secret ? MASK : (plain.get(name) as string));
  const result = compiled.render(values, { checkUrl: !references.some((r) => r.secret) });
  return { result, references, missing };
}

/** A template to validate. */
export interface ValidationInput extends TemplateInput {
  /** Where the template sits in the caller's own document (e.g. `/data/attributes/url`); echoed in its problems. */
  pointer?: string | undefined;
}

/**
 * Save-time check of templates (catalog calls it before storing an integration): syntax per
 * context, the field-type rule, and unknown names — one cache round trip for all templates. Never
 * reads or returns a value.
 * @returns `{valid, missing, errors, referenced}`: `missing` lists every unknown name (sorted);
 *   `errors` one entry per problem of a template (`invalid_template`, `invalid_header_value`,
 *   `temporary_credentials_not_allowed`, or `unknown_system_parameters` with `meta.missing`), each
 *   with the template's `index` and the caller's `pointer`; `referenced[i]` the names templates[i]
 *   references. `valid` is true when `errors` is empty.
 */
export async function validateTemplates(
  deps: SecretsDeps,
  templates: readonly ValidationInput[],
): Promise<TemplateValidation> {
  const errors: TemplateProblem[] = [];
  const problem = (index: number, code: string, detail: string, meta?: Record<string, unknown>): TemplateProblem => {
    const pointer = templates[index]?.pointer;
    return { index, ...(pointer === undefined ? {} : { pointer }), code, detail, ...(meta ? { meta } : {}) };
  };
  const compiled = templates.map((t, index) => {
    try {
      return compileFor(t);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      errors.push(problem(index, error.code, error.message));
      return null;
    }
  });
  const names = distinctNames(compiled.filter((c): c is CompiledTemplate => c !== null));
  const sealed = await loadSealedParameters(deps, names);
  compiled.forEach((c, index) => {
    const unknown = c?.names.filter((n) => !sealed.has(n)).sort() ?? [];
    if (unknown.length > 0) {
      const plural = unknown.length === 1 ? '' : 's';
      const detail = `Unknown system parameter${plural}: ${unknown.join(', ')}. Create ${plural ? 'them' : 'it'} or fix the references.`;
      errors.push(problem(index, 'unknown_system_parameters', detail, { missing: unknown }));
    }
  });
  errors.sort((a, b) => a.index - b.index);
  return {
    valid: errors.length === 0,
    missing: names.filter((n) => !sealed.has(n)).sort(),
    errors,
    referenced: compiled.map((c) => (c ? [...c.names] : [])),
  };
}
