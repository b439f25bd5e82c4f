/** Remembered ids (for receipts in another id form) and MO reassembly, in isolation. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Reassembly, type Assembly } from '../../../../src/carriers/smpp/connector/reassembly.js';
import { RecentIds } from '../../../../src/carriers/smpp/connector/recent-ids.js';

describe('RecentIds', () => {
  it('finds an id given in decimal, hex, other case or zero-padded', () => {
    const ids = new RecentIds(10);
    ids.add('1A2B3C');
    ids.add('123456789');
    expect(ids.find(String(0x1a2b3c))).toBe('1A2B3C');
    expect(ids.find('001a2b3c')).toBe('1A2B3C');
    expect(ids.find((123456789).toString(16))).toBe('123456789');
    expect(ids.find('nope')).toBeNull();
  });

  it('forgets the oldest past its capacity', () => {
    const ids = new RecentIds(2);
    ids.add('a1');
    ids.add('a2');
    ids.add('a3');
    expect(ids.find('a1')).toBeNull();
    expect(ids.size).toBe(2);
  });
});

describe('Reassembly', () => {
  afterEach(() => vi.useRealTimers());
  const key = { from: '+1', to: '+2', ref: 7, total: 3 };
  const part = (s: string) => Buffer.from(s);

  it('returns the message when the last part arrives, in any order, repeats ignored', () => {
    const r = new Reassembly<null>(1000, 10, () => {});
    expect(r.add(key, 3, part('c'), null)).toBeNull();
    expect(r.add(key, 1, part('a'), null)).toBeNull();
    expect(r.add(key, 1, part('a'), null)).toBeNull();
    const whole = r.add(key, 2, part('b'), null);
    expect(Buffer.concat(whole!.parts.map((p) => p.octets)).toString()).toBe('abc');
    r.finish(key, true);
    expect(r.pending).toBe(0);
  });

  it('holds a message whose hand-over failed, so the redelivered last part completes it again', () => {
    const r = new Reassembly<null>(1000, 10, () => {});
    r.add(key, 1, part('a'), null);
    r.add(key, 2, part('b'), null);
    expect(r.add(key, 3, part('c'), null)).not.toBeNull();
    r.finish(key, false);
    expect(r.add(key, 3, part('c'), null)?.parts).toHaveLength(3);
  });

  it('gives up after the timeout and on overflow, handing over what arrived', () => {
    vi.useFakeTimers();
    const given: Assembly<null>[] = [];
    const r = new Reassembly<null>(1000, 2, (a) => given.push(a));
    r.add(key, 1, part('a'), null);
    r.add({ ...key, ref: 8 }, 1, part('x'), null);
    r.add({ ...key, ref: 9 }, 1, part('y'), null);
    expect(given.map((g) => g.key.ref)).toEqual([7]);
    vi.advanceTimersByTime(1001);
    expect(given.map((g) => g.key.ref)).toEqual([7, 8, 9]);
    expect(r.pending).toBe(0);
  });
});
