/** Window, token bucket, backoff and rate meter: the session's flow control, in isolation. */
import { describe, expect, it } from 'vitest';
import { backoffDelay, RECONNECT_BACKOFF } from '../../../../src/carriers/smpp/session/backoff.js';
import { RateMeter } from '../../../../src/carriers/smpp/session/rate-meter.js';
import { TokenBucket } from '../../../../src/carriers/smpp/session/token-bucket.js';
import { Window } from '../../../../src/carriers/smpp/session/window.js';

describe('Window', () => {
  it('lets `size` in, queues the rest in order, hands slots over on release', async () => {
    const w = new Window(2);
    await w.acquire();
    await w.acquire();
    const order: number[] = [];
    const third = w.acquire().then(() => order.push(3));
    const fourth = w.acquire().then(() => order.push(4));
    expect(w.waiting).toBe(2);
    w.release();
    await third;
    expect(order).toEqual([3]);
    expect(w.inUse).toBe(2);
    w.release();
    await fourth;
    w.release();
    w.release();
    expect(w.inUse).toBe(0);
  });

  it('refuses a size below 1', () => {
    expect(() => new Window(0)).toThrow(RangeError);
  });
});

describe('TokenBucket', () => {
  it('paces takes 1/rate apart', async () => {
    const bucket = new TokenBucket({ rate: 20, slowDownMs: 1000, recentRate: () => 0 });
    const started = Date.now();
    const times: number[] = [];
    await Promise.all([0, 1, 2, 3, 4].map(() => bucket.take().then(() => times.push(Date.now() - started))));
    // 5 takes at 20/s: the last one 4 × 50 ms after the first (timers never fire early).
    expect(Math.max(...times)).toBeGreaterThanOrEqual(195);
  });

  it('measures each turn from the previous take, so a late turn is not followed by a burst', async () => {
    const bucket = new TokenBucket({ rate: 10, slowDownMs: 1000, recentRate: () => 0 });
    await bucket.take();
    const block = Date.now() + 300;
    while (Date.now() < block); // an event-loop stall of 300 ms
    const times: number[] = [];
    await Promise.all([0, 1, 2].map(() => bucket.take().then(() => times.push(Date.now()))));
    expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(195);
  });

  it('a stop signal ends the wait', async () => {
    const bucket = new TokenBucket({ rate: 1, slowDownMs: 1000, recentRate: () => 0 });
    await bucket.take();
    const stop = new AbortController();
    const started = Date.now();
    const waiting = bucket.take(stop.signal);
    stop.abort();
    await waiting;
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('unlimited (0) never waits', async () => {
    const bucket = new TokenBucket({ rate: 0, slowDownMs: 1000, recentRate: () => 0 });
    const started = Date.now();
    for (let i = 0; i < 1000; i++) await bucket.take();
    expect(Date.now() - started).toBeLessThan(200);
  });

  it('unlimited again after a slow-down, a take still waits for the turns queued before it', async () => {
    const bucket = new TokenBucket({ rate: 0, slowDownMs: 300, recentRate: () => 10 });
    bucket.slowDown(); // 5/s: turns 200 ms apart until the slow-down ends
    const order: string[] = [];
    const turns = ['a', 'b', 'c'].map((name) => bucket.take().then(() => order.push(name)));
    await new Promise((r) => setTimeout(r, 320));
    expect(bucket.rate).toBe(0);
    expect(order).toEqual(['a', 'b']);
    await Promise.all([...turns, bucket.take().then(() => order.push('d'))]);
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });

  it('slowDown halves the rate for a while, repeatedly, down to 1/s, then restores it', () => {
    let now = 0;
    const bucket = new TokenBucket({ rate: 10, slowDownMs: 5_000, recentRate: () => 0, now: () => now });
    bucket.slowDown();
    expect(bucket.rate).toBe(5);
    bucket.slowDown();
    expect(bucket.rate).toBe(2);
    bucket.slowDown();
    bucket.slowDown();
    expect(bucket.rate).toBe(1);
    now = 5_001;
    expect(bucket.rate).toBe(10);
  });

  it('an unlimited bucket slows down from the recent actual rate', () => {
    let now = 0;
    const bucket = new TokenBucket({ rate: 0, slowDownMs: 1_000, recentRate: () => 40, now: () => now });
    bucket.slowDown();
    expect(bucket.rate).toBe(20);
    now = 1_001;
    expect(bucket.rate).toBe(0);
  });
});

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    const noJitter = { ...RECONNECT_BACKOFF, jitter: 0 };
    expect([0, 1, 2, 3, 10, 50].map((a) => backoffDelay(a, noJitter))).toEqual([
      500, 1000, 2000, 4000, 30_000, 30_000,
    ]);
  });

  it('adds at most the jitter fraction', () => {
    expect(backoffDelay(0, RECONNECT_BACKOFF, () => 0.999)).toBeLessThanOrEqual(600);
  });
});

describe('RateMeter', () => {
  it('averages over the span and forgets old seconds', () => {
    let now = 100_000;
    const meter = new RateMeter(5, () => now);
    meter.mark(10);
    now += 1000;
    meter.mark(5);
    expect(meter.perSecond()).toBe(3);
    now += 10_000;
    expect(meter.perSecond()).toBe(0);
  });
});
