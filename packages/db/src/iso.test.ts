import { describe, expect, it } from 'vitest';
import { isoOf, msToIso } from './index.js';

const builtIn = (ms: number) => new Date(ms).toISOString();

describe('isoOf', () => {
  it('writes exactly what Date#toISOString writes, edges included', () => {
    const edges = [
      0,
      1,
      999,
      DAY(1) - 1,
      Date.UTC(1972, 1, 29, 12),
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2400, 1, 29),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      253_402_300_799_999,
    ];
    for (const ms of edges) expect(isoOf(ms)).toBe(builtIn(ms));
  });

  it('agrees with Date#toISOString on 200,000 instants spread over 1970–9999 and every day of 2000–2003', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 200_000; i++) {
      const ms = Math.floor(random() * 253_402_300_800_000);
      if (isoOf(ms) !== builtIn(ms)) expect(isoOf(ms)).toBe(builtIn(ms));
    }
    for (let ms = Date.UTC(2000, 0, 1); ms < Date.UTC(2004, 0, 1); ms += DAY(1) + 1_234) {
      if (isoOf(ms) !== builtIn(ms)) expect(isoOf(ms)).toBe(builtIn(ms));
    }
  });

  it('accepts numeric strings from drivers and falls back to the built-in outside 1970–9999', () => {
    expect(isoOf('1700000000000')).toBe(builtIn(1_700_000_000_000));
    expect(isoOf(-1)).toBe('1969-12-31T23:59:59.999Z');
    expect(isoOf(253_402_300_800_000)).toBe('+010000-01-01T00:00:00.000Z');
    expect(isoOf(1.5)).toBe(builtIn(1.5));
    expect(() => isoOf('not a number')).toThrow(RangeError);
    expect(msToIso(null)).toBeNull();
    expect(msToIso(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});

function DAY(n: number): number {
  return n * 86_400_000;
}
