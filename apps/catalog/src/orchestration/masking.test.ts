import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMasker, MASK, secretForms } from './masking.js';

describe('masking', () => {
  it('masks a secret in its raw, JSON, URL and base64 forms', () => {
    const secret = 'p@ss "w/rd"+ü';
    const mask = createMasker([secret]);
    const text = [
      `raw ${secret}`,
      JSON.stringify({ v: secret }),
      `?q=${encodeURIComponent(secret)}`,
      `form=${new URLSearchParams({ s: secret }).toString().slice(2)}`,
      `url ${new URL(`http://h/?k=${secret}`).search}`,
      `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`,
      `b64 ${Buffer.from(secret).toString('base64url')}`,
    ].join('\n');
    const masked = mask(text);
    expect(masked).toContain(MASK);
    for (const form of secretForms(secret)) expect(masked).not.toContain(form);
    expect(masked).not.toContain(secret);
    expect(masked.startsWith('raw ••••')).toBe(true);
  });

  it('leaves text alone without secrets', () => {
    expect(createMasker([])('nothing {{system.x}}')).toBe('nothing {{system.x}}');
    expect(secretForms('')).toEqual([]);
  });

  it('hides enough of a secret inside any base64 text that it cannot be read back (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8, maxLength: 40 }),
        fc.string({ maxLength: 6 }),
        fc.string({ maxLength: 6 }),
        (secret, before, after) => {
          const encoded = Buffer.from(`${before}${secret}${after}`).toString('base64');
          const masked = createMasker([secret])(encoded);
          expect(masked).toContain(MASK);
          // Whatever remains decodes to text that no longer contains the secret.
          const remains = masked.split(MASK).join('');
          expect(Buffer.from(remains, 'base64').toString('utf8')).not.toContain(secret);
        },
      ),
      { numRuns: 300 },
    );
  });
});
