import { describe, expect, it } from 'vitest';
import { boundedCache } from '../src/bounded-cache.js';

describe('boundedCache', () => {
  it('holds at most its number of entries, forgetting the least recently used first', () => {
    const cache = boundedCache<number, string>(3);
    for (let i = 1; i <= 3; i++) cache.set(i, `v${i}`);
    expect(cache.get(1)).toBe('v1'); // 1 is now the most recently used
    cache.set(4, 'v4');
    expect(cache.size).toBe(3);
    expect(cache.has(2)).toBe(false);
    expect([1, 3, 4].map((k) => cache.get(k))).toEqual(['v1', 'v3', 'v4']);
  });

  it('stays bounded through many more entries than it holds', () => {
    const cache = boundedCache<number, true>(1_000);
    for (let i = 0; i < 50_000; i++) cache.set(i, true);
    expect(cache.size).toBe(1_000);
    expect(cache.has(49_999)).toBe(true);
    expect(cache.has(48_999)).toBe(false);
  });
});
