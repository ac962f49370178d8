import { AppError, type TemplateContext } from '@runbook/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from './template.js';

const values = (entries: Record<string, string>) => new Map(Object.entries(entries));
const render = (template: string, context: TemplateContext, v: Record<string, string>) =>
  compileTemplate(template, context).render(values(v));
const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).code;
  }
};

describe('template grammar', () => {
  it('replaces references, with or without spaces, mixed with text', () => {
    expect(render('Bearer {{system.token}}', 'text', { token: 'abc' })).toBe('Bearer abc');
    expect(render('{{ system.a }}-{{system.b}}-{{\tsystem.a\t}}', 'text', { a: '1', b: '2' })).toBe('1-2-1');
    expect(render('no references', 'text', {})).toBe('no references');
    expect(render('', 'text', {})).toBe('');
  });

  it('lists distinct names in order of first appearance', () => {
    expect(compileTemplate('{{system.b}} {{system.a}} {{system.b}}', 'text').names).toEqual(['b', 'a']);
  });

  it('turns \\{{ into a literal {{ and leaves other backslashes alone', () => {
    expect(render('\\{{system.a}} and {{system.a}}', 'text', { a: 'x' })).toBe('{{system.a}} and x');
    expect(render('C:\\path\\{{system.a}}', 'text', { a: 'x' })).toBe('C:\\path{{system.a}}');
    expect(render('a\\b', 'text', {})).toBe('a\\b');
    expect(compileTemplate('\\{{system.a}}', 'text').names).toEqual([]);
  });

  it('leaves other {{…}} syntaxes as text but rejects malformed system references', () => {
    expect(render('{{user.name}} {{ foo }} {{system.a}}', 'text', { a: 'x' })).toBe('{{user.name}} {{ foo }} x');
    expect(render('{{{system.a}}}', 'text', { a: 'x' })).toBe('{x}');
    for (const bad of [
      '{{system.}}',
      '{{system.A}}',
      '{{system.a',
      '{{ system.a b }}',
      '{{system.1a}}',
      '{{system.a}',
      `{{system.${'a'.repeat(65)}}}`,
    ]) {
      expect(
        codeOf(() => compileTemplate(bad, 'text')),
        bad,
      ).toBe('invalid_template');
    }
    expect(compileTemplate(`{{system.${'a'.repeat(64)}}}`, 'text').names).toHaveLength(1);
  });

  it('is single pass: a value that looks like a reference is not expanded', () => {
    expect(render('{{system.a}}', 'text', { a: '{{system.b}}', b: 'nope' })).toBe('{{system.b}}');
  });

  it('names every missing parameter when rendering without them', () => {
    try {
      render('{{system.a}} {{system.b}} {{system.c}}', 'text', { b: 'x' });
      expect.fail('should throw');
    } catch (error) {
      expect((error as AppError).code).toBe('unknown_system_parameters');
      expect((error as AppError).errors[0]?.meta).toEqual({ missing: ['a', 'c'] });
      expect((error as AppError).message).toContain('a, c');
    }
  });
});

describe('contexts', () => {
  it('url: the result must be an absolute http(s) URL', () => {
    expect(render('https://{{system.host}}/v1', 'url', { host: 'api.example.com' })).toBe('https://api.example.com/v1');
    expect(codeOf(() => render('{{system.host}}/v1', 'url', { host: 'api.example.com' }))).toBe('invalid_url');
    expect(codeOf(() => render('{{system.u}}', 'url', { u: 'javascript:alert(1)' }))).toBe('invalid_url');
    expect(codeOf(() => render('https://{{system.host}}', 'url', { host: 'a b:c' }))).toBe('invalid_url');
  });

  it('header: CR, LF and NUL in a value are refused without echoing the value', () => {
    expect(render('Bearer {{system.t}}', 'header', { t: 'abc' })).toBe('Bearer abc');
    for (const evil of ['a\r\nX-Injected: 1', 'a\nb', 'a\rb', 'a\0b']) {
      try {
        render('Bearer {{system.t}}', 'header', { t: evil });
        expect.fail('should throw');
      } catch (error) {
        expect((error as AppError).code).toBe('invalid_header_value');
        expect((error as AppError).message).not.toContain(evil);
      }
    }
    expect(codeOf(() => compileTemplate('a\nb', 'header'))).toBe('invalid_header_value');
  });

  it('json: values become escaped string content and cannot change the structure', () => {
    const template = '{"auth": "Bearer {{system.t}}", "{{system.k}}": ["{{ system.t }}", 1]}';
    const out = render(template, 'json', { t: 'a"b\\c\n\u0001', k: 'key"' });
    expect(JSON.parse(out)).toEqual({ auth: 'Bearer a"b\\c\n\u0001', 'key"': ['a"b\\c\n\u0001', 1] });
    expect(render('"{{system.t}}"', 'json', { t: '", "x": "y' })).toBe('"\\", \\"x\\": \\"y"');
  });

  it('json: references outside strings, inside escapes, or invalid JSON are invalid templates', () => {
    expect(codeOf(() => compileTemplate('{"a": {{system.n}}}', 'json'))).toBe('invalid_template');
    expect(codeOf(() => compileTemplate('{"a": 1{{system.n}}}', 'json'))).toBe('invalid_template');
    expect(codeOf(() => compileTemplate('{"a": "\\u00{{system.n}}"}', 'json'))).toBe('invalid_template');
    expect(codeOf(() => compileTemplate('{"a": "{{system.n}}"', 'json'))).toBe('invalid_template');
    expect(codeOf(() => compileTemplate('', 'json'))).toBe('invalid_template');
    expect(render('{"a": "\\{{system.n}}"}', 'json', {})).toBe('{"a": "{{system.n}}"}');
  });

  it('json: lone surrogates in values are escaped (the output stays well-formed)', () => {
    const out = render('["{{system.s}}"]', 'json', { s: 'x\ud800y' });
    expect(out).toBe('["x\\ud800y"]');
    expect(JSON.parse(out)).toEqual(['x\ud800y']);
  });
});

// ── properties ───────────────────────────────────────────────────────────────────────────────

const nameArb = fc.constantFrom('a', 'b', 'api_key', 'host', 'x9');
const valueArb = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom('{{system.a}}', '"}', '\\', '\r\n', '\u2028', '\ud800', 'https://x.example/p?q=1#f'),
);
const valuesArb = fc.record({ a: valueArb, b: valueArb, api_key: valueArb, host: valueArb, x9: valueArb });
/** Literal text: anything without `{` or `\` (those are template syntax). */
const literalArb = fc.string({ unit: 'binary' }).map((s) => s.replace(/[{\\]/g, ''));
type Part = { lit: string } | { ref: string };
const partsArb = fc.array(
  fc.oneof(
    literalArb.map((lit): Part => ({ lit })),
    nameArb.map((ref): Part => ({ ref })),
  ),
  { maxLength: 8 },
);
const spaces = fc.constantFrom('', ' ', '  ', '\t');
const refText = (name: string, pad: [string, string]) => `{{${pad[0]}system.${name}${pad[1]}}}`;

describe('properties', () => {
  it('never throws anything but documented AppErrors, in any context', () => {
    const documented = new Set([
      'invalid_template',
      'invalid_url',
      'invalid_header_value',
      'unknown_system_parameters',
    ]);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          partsArb.map((ps) => ps.map((p) => ('lit' in p ? p.lit : refText(p.ref, ['', '']))).join('')),
        ),
        fc.constantFrom<TemplateContext>('text', 'url', 'header', 'json'),
        valuesArb,
        (template, context, v) => {
          try {
            compileTemplate(template, context).render(values(v));
          } catch (error) {
            if (!(error instanceof AppError) || !documented.has(error.code)) throw error;
            for (const value of Object.values(v))
              if (value.length > 8 && !template.includes(value)) expect(error.message).not.toContain(value);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('text: exactly literal text plus values, never expanding a value', () => {
    fc.assert(
      fc.property(
        partsArb,
        fc.array(fc.tuple(spaces, spaces), { minLength: 8, maxLength: 8 }),
        valuesArb,
        (parts, pads, v) => {
          const template = parts
            .map((p, i) => ('lit' in p ? p.lit : refText(p.ref, pads[i] as [string, string])))
            .join('');
          const expected = parts.map((p) => ('lit' in p ? p.lit : v[p.ref as keyof typeof v])).join('');
          expect(compileTemplate(template, 'text').render(values(v))).toBe(expected);
        },
      ),
    );
  });

  it('header: a result never contains CR, LF or NUL', () => {
    fc.assert(
      fc.property(partsArb, valuesArb, (parts, v) => {
        const template = parts.map((p) => ('lit' in p ? p.lit : refText(p.ref, ['', '']))).join('');
        try {
          expect(compileTemplate(template, 'header').render(values(v))).not.toMatch(/[\r\n\0]/);
        } catch (error) {
          expect((error as AppError).code).toBe('invalid_header_value');
        }
      }),
    );
  });

  it('url: a result always parses as an http(s) URL', () => {
    fc.assert(
      fc.property(fc.constantFrom('https://', 'http://', '', 'ftp://'), partsArb, valuesArb, (scheme, parts, v) => {
        const template = scheme + parts.map((p) => ('lit' in p ? p.lit : refText(p.ref, ['', '']))).join('');
        let result: string;
        try {
          result = compileTemplate(template, 'url').render(values(v));
        } catch (error) {
          expect((error as AppError).code).toBe('invalid_url');
          return;
        }
        expect(['http:', 'https:']).toContain(new URL(result).protocol);
      }),
    );
  });

  it('json: output parses and equals the template shape with only string contents changed', () => {
    // A JSON tree whose strings (Str) are lists of literal parts and references.
    class Str {
      constructor(readonly parts: Part[]) {}
    }
    type Tree = null | boolean | number | Str | Tree[] | { [k: string]: Tree };
    const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constant(null),
        fc.boolean(),
        fc.integer(),
        partsArb.map((parts) => new Str(parts)),
        fc.array(tie('tree'), { maxLength: 4 }),
        fc.dictionary(literalArb, tie('tree'), { maxKeys: 4 }),
      ),
    }));
    const toTemplate = (t: Tree): string => {
      if (t === null || typeof t !== 'object') return JSON.stringify(t);
      if (t instanceof Str)
        return `"${t.parts.map((p) => ('lit' in p ? JSON.stringify(p.lit).slice(1, -1) : refText(p.ref, [' ', ' ']))).join('')}"`;
      if (Array.isArray(t)) return `[${t.map(toTemplate).join(',')}]`;
      return `{${Object.entries(t)
        .map(([k, c]) => `${JSON.stringify(k)}:${toTemplate(c)}`)
        .join(',')}}`;
    };
    const expectedOf = (t: Tree, v: Record<string, string>): unknown => {
      if (t === null || typeof t !== 'object') return t;
      if (t instanceof Str) return t.parts.map((p) => ('lit' in p ? p.lit : v[p.ref])).join('');
      if (Array.isArray(t)) return t.map((c) => expectedOf(c, v));
      return Object.fromEntries(Object.entries(t).map(([k, c]) => [k, expectedOf(c, v)]));
    };
    fc.assert(
      fc.property(tree, valuesArb, (t, v) => {
        const out = compileTemplate(toTemplate(t), 'json').render(values(v));
        expect(JSON.parse(out)).toEqual(expectedOf(t, v));
      }),
      { numRuns: 500 },
    );
  });
});
