import { describe, expect, it } from 'vitest';
import { padded } from '../../src/store/shaped-sql.js';

describe('padded IN lists', () => {
  it('repeats the last value up to the next power of two, and leaves powers of two and empty lists alone', () => {
    expect(padded([])).toEqual([]);
    expect(padded([7])).toEqual([7]);
    expect(padded([1, 2, 3])).toEqual([1, 2, 3, 3]);
    expect(padded([1, 2, 3, 4, 5])).toEqual([1, 2, 3, 4, 5, 5, 5, 5]);
    const full = Array.from({ length: 512 }, (_, i) => i);
    expect(padded(full)).toBe(full);
    expect(padded(full.slice(0, 500))).toHaveLength(512);
  });
});
