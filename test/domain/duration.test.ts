import { describe, expect, it } from 'vitest';
import { parseDuration, parseDurationList } from '../../src/domain/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['5s', 5_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['48h', 172_800_000],
    ['1d', 86_400_000],
    ['30', 30_000],
    ['0', 0],
    ['0ms', 0],
    ['05s', 5_000],
    [' 48h ', 172_800_000],
    ['\t5m\n', 300_000],
  ])('reads %j as %d ms', (input, expected) => {
    expect(parseDuration(input)).toBe(expected);
  });

  it.each([
    ['', 'empty'],
    ['   ', 'blank'],
    ['h', 'a unit alone'],
    ['5 s', 'a space inside'],
    ['1.5h', 'a fraction'],
    ['1,5h', 'a decimal comma'],
    ['-5s', 'negative'],
    ['+5s', 'a sign'],
    ['5S', 'an upper-case unit'],
    ['5sec', 'a long unit'],
    ['5w', 'an unknown unit'],
    ['5h30m', 'compound'],
    ['1e3', 'an exponent'],
    ['0x10', 'hex'],
    ['Infinity', 'Infinity'],
    ['99999999999999999d', 'past the safe integer range'],
  ])('rejects %j (%s)', (input) => {
    expect(parseDuration(input)).toBeNull();
  });
});

describe('parseDurationList', () => {
  it('reads the webhook retry schedule', () => {
    expect(parseDurationList('5s,5m,30m,2h,5h,10h,10h')).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
  });

  it('allows whitespace around items', () => {
    expect(parseDurationList(' 5s , 5m,\t30m ')).toEqual([5_000, 300_000, 1_800_000]);
  });

  it('reads a single item and bare seconds', () => {
    expect(parseDurationList('10')).toEqual([10_000]);
    expect(parseDurationList('500ms,1')).toEqual([500, 1_000]);
  });

  it.each([
    ['', 'empty'],
    [' ', 'blank'],
    [',', 'a lone comma'],
    ['5s,', 'a trailing comma'],
    [',5s', 'a leading comma'],
    ['5s,,5m', 'an empty item'],
    ['5s,5x', 'one malformed item'],
    ['5s;5m', 'another separator'],
    ['5s 5m', 'space-separated'],
  ])('rejects %j (%s)', (input) => {
    expect(parseDurationList(input)).toBeNull();
  });
});
