import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GSM7_BASIC, GSM7_ESC, GSM7_EXTENSION } from '../../src/domain/gsm7.js';
import { countParts, gsm7Septets, isGsm7, planParts, type PartPlan } from '../../src/domain/parts.js';

const a = (n: number): string => 'a'.repeat(n);
const u = (n: number): string => 'ж'.repeat(n); // Cyrillic: not GSM, one UTF-16 unit
const EMOJI = '😀'; // U+1F600: one surrogate pair, two UTF-16 units

/** decisions §5's GSM-7 formula. */
function billedGsm7(septets: number): number {
  return septets <= 160 ? 1 : Math.ceil(septets / 153);
}

function plan(text: string): PartPlan & { lengths: number[] } {
  const p = planParts(text);
  expect(p.parts.join('')).toBe(text);
  const numParts = p.encoding === 'gsm7' ? billedGsm7(p.units) : p.parts.length;
  expect(countParts(text)).toEqual({ encoding: p.encoding, numParts });
  return { ...p, lengths: p.parts.map((part) => (p.encoding === 'gsm7' ? gsm7Septets(part) : part.length)) };
}

describe('GSM 03.38 tables', () => {
  it('has 128 basic entries with ESC at 0x1B and the ten extension characters', () => {
    expect(GSM7_BASIC).toHaveLength(128);
    expect(GSM7_BASIC.charCodeAt(GSM7_ESC)).toBe(0x1b);
    expect(GSM7_BASIC[0x00]).toBe('@');
    expect(GSM7_BASIC[0x09]).toBe('Ç');
    expect(GSM7_BASIC[0x24]).toBe('¤');
    expect(GSM7_BASIC[0x40]).toBe('¡');
    expect(GSM7_BASIC[0x7f]).toBe('à');
    expect([...GSM7_EXTENSION.values()].join('')).toBe('\f^{}\\[~]|€');
  });

  it('counts extension characters as two septets and rejects ESC, emoji and non-GSM letters', () => {
    expect(gsm7Septets('^{}\\[~]|€\f')).toBe(20);
    expect(gsm7Septets('@£$¥ΔΦΓ')).toBe(7);
    expect(isGsm7('')).toBe(true);
    expect(isGsm7('\x1b')).toBe(false);
    expect(isGsm7('a' + EMOJI)).toBe(false);
    expect(isGsm7('ç')).toBe(false); // only the capital Ç is in the table
    expect(() => gsm7Septets('ж')).toThrow(RangeError);
  });
});

describe('planParts / countParts: GSM-7', () => {
  it('empty body is one part', () => {
    expect(plan('')).toMatchObject({ encoding: 'gsm7', units: 0, parts: [''] });
  });

  it('160 septets is one part, 161 is two', () => {
    expect(plan(a(160)).lengths).toEqual([160]);
    expect(plan(a(161)).lengths).toEqual([153, 8]);
  });

  it('306 septets is two parts, 307 is three', () => {
    expect(plan(a(306)).lengths).toEqual([153, 153]);
    expect(plan(a(307)).lengths).toEqual([153, 153, 1]);
  });

  it('an extension character turns 159 + 2 into 161 septets and two parts', () => {
    expect(plan(a(158) + '€').units).toBe(160);
    expect(plan(a(158) + '€').lengths).toEqual([160]);
    const p = plan(a(159) + '€');
    expect(p.units).toBe(161);
    expect(p.lengths).toEqual([153, 8]);
  });

  it('an escape pair that would straddle septet 153 moves whole to the next part', () => {
    const p = plan(a(152) + '€' + a(10));
    expect(p.parts[0]).toBe(a(152));
    expect(p.parts[1]).toBe('€' + a(10));
    expect(p.lengths).toEqual([152, 12]);
  });

  it('the greedy count can exceed ceil(n / 153) at the boundary', () => {
    // 152 + (2 + 151) = 305 septets: ceil says 2, but the € cannot be cut, so 3 parts.
    const text = a(152) + '€' + a(151) + '€';
    const p = plan(text);
    expect(p.units).toBe(307);
    expect(p.lengths).toEqual([152, 153, 2]);
    expect(countParts(text).numParts).toBe(3);
    const q = plan(a(152) + '€' + a(151));
    expect(q.units).toBe(305);
    expect(q.lengths).toEqual([152, 153]);
  });
});

describe('planParts / countParts: UCS-2', () => {
  it('a single emoji in GSM text switches to UCS-2', () => {
    expect(plan(a(10) + EMOJI)).toMatchObject({ encoding: 'ucs2', units: 12 });
  });

  it('70 units is one part, 71 is two', () => {
    expect(plan(u(70)).lengths).toEqual([70]);
    expect(plan(u(71)).lengths).toEqual([67, 4]);
  });

  it('134 units is two parts, 135 is three', () => {
    expect(plan(u(134)).lengths).toEqual([67, 67]);
    expect(plan(u(135)).lengths).toEqual([67, 67, 1]);
  });

  it('a surrogate pair straddling unit 67 moves whole to the next part', () => {
    const p = plan(u(66) + EMOJI + u(10));
    expect(p.parts[0]).toBe(u(66));
    expect(p.parts[1]).toBe(EMOJI + u(10));
    expect(p.lengths).toEqual([66, 12]);
  });

  it('emoji-only bodies: 35 emoji fit one part, 36 need two of 33 + 3 emoji', () => {
    expect(plan(EMOJI.repeat(35)).lengths).toEqual([70]);
    expect(plan(EMOJI.repeat(36)).lengths).toEqual([66, 6]);
  });

  it('bills the parts actually cut, never splitting a surrogate pair (decisions §5)', () => {
    const text = EMOJI.repeat(67); // 134 units: ceil(134 / 67) would say 2
    expect(countParts(text)).toEqual({ encoding: 'ucs2', numParts: 3 });
    expect(planParts(text).parts).toHaveLength(3);
    expect(countParts(EMOJI.repeat(66))).toEqual({ encoding: 'ucs2', numParts: 2 });
    expect(countParts(u(66) + EMOJI + u(67))).toEqual({ encoding: 'ucs2', numParts: 3 });
    expect(countParts(u(134))).toEqual({ encoding: 'ucs2', numParts: 2 });
  });

  it('a lone surrogate is carried as one unit and may sit on a cut', () => {
    const p = plan(u(66) + '\ud83d' + u(10));
    expect(p.lengths).toEqual([67, 10]);
  });
});

describe('countParts is decisions §5; planParts cuts the same for UCS-2, at most one more for GSM-7', () => {
  // Weighted towards boundary-relevant symbols: extension chars, emoji, and long runs.
  const symbol = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a', ' ', 'Δ', '@') },
    { weight: 2, arbitrary: fc.constantFrom(...GSM7_EXTENSION.values()) },
    { weight: 1, arbitrary: fc.constantFrom(EMOJI, 'ж', '\ud83d', '\ude00') },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) },
  );
  const body = fc.array(symbol, { maxLength: 500 }).map((s) => s.join(''));

  it('part count, join, and per-part limits hold for random bodies', () => {
    fc.assert(
      fc.property(body, (text) => {
        const p = planParts(text);
        expect(p.parts.join('')).toBe(text);
        const counted = countParts(text);
        expect(counted.encoding).toBe(p.encoding);
        if (p.encoding === 'gsm7') {
          expect(counted.numParts).toBe(billedGsm7(p.units));
          expect(p.parts.length - counted.numParts).toBeGreaterThanOrEqual(0);
          expect(p.parts.length - counted.numParts).toBeLessThanOrEqual(1);
        } else {
          expect(counted.numParts).toBe(p.parts.length);
        }
        const limit =
          p.parts.length === 1 ? (p.encoding === 'gsm7' ? 160 : 70) : p.encoding === 'gsm7' ? 153 : 67;
        p.parts.forEach((part, i) => {
          expect(p.encoding === 'gsm7' ? gsm7Septets(part) : part.length).toBeLessThanOrEqual(limit);
          const seam = (p.parts[i - 1] ?? '').slice(-1) + part.slice(0, 1);
          expect(seam).not.toMatch(/^[\ud800-\udbff][\udc00-\udfff]$/);
        });
      }),
      { numRuns: 500 },
    );
  });
});
