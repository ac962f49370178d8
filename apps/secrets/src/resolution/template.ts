/**
 * `{{system.<name>}}` templates (DESIGN §5). Pure: no I/O, no secrets kept.
 *
 * Grammar
 * - A reference is `{{`, optional spaces or tabs, `system.`, a name (`[a-z][a-z0-9_]*`, at most 64
 *   characters), optional spaces or tabs, `}}` — e.g. `{{system.api_key}}` or `{{ system.api_key }}`.
 *   A template holds any number of references mixed with text.
 * - Escape: a backslash immediately before `{{` is dropped and the `{{` is literal text, so
 *   `\{{system.a}}` renders as `{{system.a}}`. Every other backslash is literal (a literal backslash
 *   therefore cannot directly precede a reference).
 * - A `{{` that is not followed by optional spaces and `system.` is literal text (other template
 *   syntaxes pass through untouched); `{{ system.` followed by anything but a valid name and `}}` is
 *   422 `invalid_template`, so a typo is never sent out verbatim.
 * - Single pass: values are inserted as they are; a value containing `{{…}}` is never expanded.
 *
 * Contexts (how values are inserted and what the result must be)
 * - `text`: values as they are.
 * - `url`: the result must parse as an absolute `http:`/`https:` URL, else 422 `invalid_url`.
 * - `header`: a value (or the template) containing CR, LF or NUL is 422 `invalid_header_value`.
 * - `json`: the template must be valid JSON once references are removed, and every reference must
 *   sit inside a JSON string — a string value or an object key — else 422 `invalid_template`. Values
 *   are inserted as JSON string content escaped like `JSON.stringify` (quotes, backslashes, control
 *   characters, lone surrogates), so a value can never change the document's structure. A reference
 *   in a key renames that key; two keys resolving to the same text collapse as `JSON.parse` does.
 *
 * Templates are parsed once into literal/reference segments and cached (LRU per context); rendering
 * is a single concatenation pass with no regular expressions.
 *
 * Error details never contain a value, resolved or not.
 */
import { type AppError, type TemplateContext, unprocessable } from '@runbook/contracts';

/** A parsed template, ready to render many times. */
export interface CompiledTemplate {
  readonly context: TemplateContext;
  /** Distinct referenced names, in order of first appearance. */
  readonly names: readonly string[];
  /**
   * Inserts `values` (name → plaintext) into the template as its context requires.
   * @param options.checkUrl `false` skips the `url` result check (for masked previews). Default true.
   * @returns the resolved text.
   * @throws {AppError} 422 `unknown_system_parameters` (meta.missing) when a referenced name has no
   *   value; 422 `invalid_header_value` / `invalid_url` per context.
   */
  render(values: ReadonlyMap<string, string>, options?: { checkUrl?: boolean }): string;
}

/** Largest template the procedures accept, in characters (64 KiB). */
export const TEMPLATE_MAX_LENGTH = 65_536;

const NAME_MAX = 64;
const CACHE_MAX_PER_CONTEXT = 256;
/** Longer templates are compiled on every call rather than kept in memory. */
const CACHEABLE_LENGTH = 16_384;

const CLOSE_BRACE = 125; // }
const BACKSLASH = 92;
const QUOTE = 34;
const SPACE = 32;
const TAB = 9;

/** 422 `invalid_template` with `detail`. */
export const invalidTemplate = (detail: string) => unprocessable('invalid_template', detail);

/**
 * 422 `unknown_system_parameters`: the whole resolution fails and names every missing parameter
 * (detail and `meta.missing`, sorted).
 */
export function unknownParameters(missing: readonly string[]): AppError {
  const sorted = [...missing].sort();
  return unprocessable(
    'unknown_system_parameters',
    `Unknown system parameter${sorted.length === 1 ? '' : 's'}: ${sorted.join(', ')}. Nothing was resolved; create ${sorted.length === 1 ? 'it' : 'them'} or fix the references.`,
    undefined,
    { missing: sorted },
  );
}

const isNameStart = (c: number) => c >= 97 && c <= 122;
const isNameChar = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;

interface Parsed {
  /** `refs.length + 1` literal texts around the references. */
  literals: string[];
  refs: string[];
  /** Character offset of each reference in the template (for messages). */
  offsets: number[];
}

function parse(template: string): Parsed {
  const literals: string[] = [];
  const refs: string[] = [];
  const offsets: number[] = [];
  let literal = '';
  let segmentStart = 0;
  let pos = 0;
  for (;;) {
    const open = template.indexOf('{{', pos);
    if (open === -1) break;
    if (open > 0 && template.charCodeAt(open - 1) === BACKSLASH) {
      literal += `${template.slice(segmentStart, open - 1)}{{`;
      segmentStart = pos = open + 2;
      continue;
    }
    let i = open + 2;
    while (template.charCodeAt(i) === SPACE || template.charCodeAt(i) === TAB) i++;
    if (!template.startsWith('system.', i)) {
      pos = open + 1;
      continue;
    }
    i += 7;
    const nameStart = i;
    if (isNameStart(template.charCodeAt(i))) {
      i++;
      while (isNameChar(template.charCodeAt(i))) i++;
    }
    const nameEnd = i;
    while (template.charCodeAt(i) === SPACE || template.charCodeAt(i) === TAB) i++;
    if (nameEnd === nameStart || template.charCodeAt(i) !== CLOSE_BRACE || template.charCodeAt(i + 1) !== CLOSE_BRACE) {
      throw invalidTemplate(
        `Malformed system parameter reference at character ${open}: expected {{system.<name>}} where the name starts with a lower-case letter and contains only a-z, 0-9 and _. Write \\{{ for a literal {{.`,
      );
    }
    if (nameEnd - nameStart > NAME_MAX) {
      throw invalidTemplate(
        `The system parameter reference at character ${open} is longer than ${NAME_MAX} characters.`,
      );
    }
    literals.push(literal + template.slice(segmentStart, open));
    literal = '';
    refs.push(template.slice(nameStart, nameEnd));
    offsets.push(open);
    segmentStart = pos = i + 2;
  }
  literals.push(literal + template.slice(segmentStart));
  return { literals, refs, offsets };
}

/** Checks a json template: every reference inside a string (not inside an escape), and valid JSON once references are removed. */
function checkJsonTemplate({ literals, refs, offsets }: Parsed): void {
  let inString = false;
  let escaped = false;
  let hexLeft = 0;
  for (let s = 0; s < literals.length; s++) {
    if (s > 0 && (!inString || escaped || hexLeft > 0)) {
      throw invalidTemplate(
        `In a json template a reference must be inside a JSON string (a value or a key); {{system.${refs[s - 1]}}} at character ${offsets[s - 1]} is not.`,
      );
    }
    const literal = literals[s] as string;
    for (let i = 0; i < literal.length; i++) {
      const c = literal.charCodeAt(i);
      if (hexLeft > 0) hexLeft--;
      else if (escaped) {
        escaped = false;
        if (c === 117 /* u */) hexLeft = 4;
      } else if (inString) {
        if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) inString = true;
    }
  }
  try {
    JSON.parse(literals.join(''));
  } catch (error) {
    throw invalidTemplate(`The template is not valid JSON: ${(error as Error).message}`);
  }
}

const hasHeaderBreaker = (s: string) => s.includes('\r') || s.includes('\n') || s.includes('\0');

const headerError = () =>
  unprocessable(
    'invalid_header_value',
    'A header value may not contain CR, LF or NUL characters; the resolved value of this header does.',
  );

/** JSON string content for `value` (JSON.stringify without the quotes); returns `value` itself when nothing needs escaping. */
function jsonStringContent(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === QUOTE || c === BACKSLASH || (c >= 0xd800 && c <= 0xdfff))
      return JSON.stringify(value).slice(1, -1);
  }
  return value;
}

function checkUrl(result: string): void {
  let url: URL;
  try {
    url = new URL(result);
  } catch {
    throw unprocessable('invalid_url', 'The resolved template is not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw unprocessable('invalid_url', 'The resolved template must be an http:// or https:// URL.');
  }
}

class Template implements CompiledTemplate {
  readonly names: readonly string[];
  constructor(
    readonly context: TemplateContext,
    private readonly literals: readonly string[],
    private readonly refs: readonly string[],
  ) {
    this.names = [...new Set(refs)];
  }

  render(values: ReadonlyMap<string, string>, options?: { checkUrl?: boolean }): string {
    const { literals, refs, context } = this;
    let out = literals[0] as string;
    for (let i = 0; i < refs.length; i++) {
      const value = values.get(refs[i] as string);
      if (value === undefined) throw unknownParameters(this.names.filter((n) => !values.has(n)));
      if (context === 'json') out += jsonStringContent(value);
      else {
        if (context === 'header' && hasHeaderBreaker(value)) throw headerError();
        out += value;
      }
      out += literals[i + 1] as string;
    }
    if (context === 'url' && options?.checkUrl !== false) checkUrl(out);
    return out;
  }
}

const caches: Record<TemplateContext, Map<string, CompiledTemplate>> = {
  text: new Map(),
  url: new Map(),
  header: new Map(),
  json: new Map(),
};

/**
 * Parses `template` for `context` (cached: the same template and context parse once).
 * @returns a {@link CompiledTemplate}.
 * @throws {AppError} 422 `invalid_template` for a malformed reference, or (json) invalid JSON or a
 *   reference outside a string; 422 `invalid_header_value` for a header template whose own text holds CR, LF or NUL.
 */
export function compileTemplate(template: string, context: TemplateContext): CompiledTemplate {
  const cache = caches[context];
  const hit = cache.get(template);
  if (hit) {
    // Re-inserting keeps the Map in least-recently-used order.
    cache.delete(template);
    cache.set(template, hit);
    return hit;
  }
  const parsed = parse(template);
  if (context === 'json') checkJsonTemplate(parsed);
  if (context === 'header' && parsed.literals.some(hasHeaderBreaker)) throw headerError();
  const compiled = new Template(context, parsed.literals, parsed.refs);
  if (template.length <= CACHEABLE_LENGTH) {
    if (cache.size >= CACHE_MAX_PER_CONTEXT) cache.delete(cache.keys().next().value as string);
    cache.set(template, compiled);
  }
  return compiled;
}

/** `true` when `template` holds at least one `{{system.*}}` reference (or a malformed attempt at one). Never throws. */
export function mentionsSystemParameters(template: string): boolean {
  try {
    return compileTemplate(template, 'text').names.length > 0;
  } catch {
    return true;
  }
}
