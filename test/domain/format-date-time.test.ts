import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDateTime } from '../../src/domain/dates.js';

/** 9999-12-31T23:59:59.999Z: the last instant the API stores (src/domain/dates.ts). */
const MAX_MS = 253_402_300_799_999;
const DAY_MS = 86_400_000;

const sameAsDate = (ms: number) => {
  expect(formatDateTime(ms)).toBe(new Date(ms).toISOString());
};

describe('formatDateTime prints exactly what Date.prototype.toISOString prints', () => {
  it('for every millisecond the API can store', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: MAX_MS }), sameAsDate), { numRuns: 100_000 });
  });

  it('around every day boundary, where the date arithmetic could be off by one', () => {
    // Day starts and ends, biased to leap days, month and year ends and century years.
    const lastDay = Math.floor(MAX_MS / DAY_MS);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: lastDay }), fc.integer({ min: -1, max: 1 }), (day, step) => {
        const ms = day * DAY_MS + step;
        if (ms >= 0 && ms <= MAX_MS) sameAsDate(ms);
      }),
      { numRuns: 100_000 },
    );
  });

  it('on every day from 1970 to 9999, at midnight and at the last millisecond', () => {
    // 5.8 million values: compared plainly, with expect only for the first difference.
    const differing: number[] = [];
    for (let ms = 0; ms <= MAX_MS && differing.length === 0; ms += DAY_MS) {
      for (const at of [ms, ms + DAY_MS - 1]) {
        if (formatDateTime(at) !== new Date(at).toISOString()) differing.push(at);
      }
    }
    expect(differing.map((ms) => [ms, formatDateTime(ms)])).toEqual([]);
  });

  it('at every second of a day and every millisecond of a second', () => {
    const day = 20_413 * DAY_MS; // 2025-11-21
    const differing: number[] = [];
    for (let s = 0; s < 86_400; s++) {
      const at = day + s * 1000 + (s % 1000);
      if (formatDateTime(at) !== new Date(at).toISOString()) differing.push(at);
    }
    for (let milli = 0; milli < 1000; milli++) {
      const at = day + 86_399_000 + milli;
      if (formatDateTime(at) !== new Date(at).toISOString()) differing.push(at);
    }
    expect(differing.map((ms) => [ms, formatDateTime(ms)])).toEqual([]);
  });

  it.each([
    [0, '1970-01-01T00:00:00.000Z'],
    [951_782_400_000, '2000-02-29T00:00:00.000Z'],
    [4_107_542_399_999, '2100-02-28T23:59:59.999Z'],
    [1_795_302_285_396, '2026-11-21T23:04:45.396Z'],
    [MAX_MS, '9999-12-31T23:59:59.999Z'],
  ])('%s is %s', (ms, text) => {
    expect(formatDateTime(ms)).toBe(text);
  });

  it('outside that range and for fractions too: Date prints those', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -8.64e15, max: -1 }),
          fc.integer({ min: MAX_MS + 1, max: 8.64e15 }),
          fc.double({ min: 0, max: MAX_MS, noNaN: true }),
        ),
        sameAsDate,
      ),
    );
    for (const ms of [-0, -1, MAX_MS + 1, 8.64e15, -8.64e15, 0.5, MAX_MS - 0.5]) sameAsDate(ms);
    expect(() => formatDateTime(Number.NaN)).toThrow(RangeError);
    expect(() => formatDateTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
