import { describe, expect, it } from 'vitest';
import { coalescedLookup } from '../../src/store/coalesced-lookup.js';

/** A lookup that records each question and answers from `listed`. */
function recording(listed: Record<number, string[]>) {
  const asked: { key: number; values: string[] }[] = [];
  const lookup = coalescedLookup(async (key: number, values: readonly string[]) => {
    asked.push({ key, values: [...values].sort() });
    return new Set(values.filter((v) => listed[key]?.includes(v)));
  });
  return { asked, lookup };
}

describe('coalesced lookups', () => {
  it('asks once per key for the calls of one turn, and answers each caller for its own values', async () => {
    const { asked, lookup } = recording({ 1: ['+61400000001', '+61400000003'], 2: ['+61400000002'] });
    const [a, b, c] = await Promise.all([
      lookup(1, ['+61400000001', '+61400000002']),
      lookup(1, ['+61400000003']),
      lookup(2, ['+61400000002']),
    ]);
    expect(asked).toEqual([
      { key: 1, values: ['+61400000001', '+61400000002', '+61400000003'] },
      { key: 2, values: ['+61400000002'] },
    ]);
    expect([...a]).toEqual(['+61400000001']);
    expect([...b]).toEqual(['+61400000003']);
    expect([...c]).toEqual(['+61400000002']);
  });

  it('asks again for calls of a later turn', async () => {
    const { asked, lookup } = recording({ 1: ['+61400000001'] });
    expect([...(await lookup(1, ['+61400000001']))]).toEqual(['+61400000001']);
    expect([...(await lookup(1, ['+61400000001']))]).toEqual(['+61400000001']);
    expect(asked).toHaveLength(2);
  });

  it("fails every caller of a batch whose lookup failed, and not the next turn's", async () => {
    let fail = true;
    const lookup = coalescedLookup(async (_key: number, values: readonly string[]) => {
      if (fail) throw new Error('database gone');
      return new Set(values);
    });
    const results = await Promise.allSettled([lookup(1, ['+61400000001']), lookup(1, ['+61400000002'])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect([...(await lookup(1, ['+61400000001']))]).toEqual(['+61400000001']);
  });
});
