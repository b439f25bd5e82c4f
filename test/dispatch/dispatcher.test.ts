import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../src/carriers/port.js';
import { batchSize, startDispatcher } from '../../src/dispatch/dispatcher.js';
import { createRateLimiter } from '../../src/dispatch/rate-limiter.js';

const logger = pino({ level: 'silent' });

function queue(items: number[]) {
  const recorded: { work: number; outcome: SubmitOutcome }[] = [];
  let recordFailures = 0;
  return {
    recorded,
    failRecords(n: number) {
      recordFailures = n;
    },
    ops: {
      claim: async (limit: number) => items.splice(0, limit),
      submit: async (w: number): Promise<SubmitOutcome> => {
        if (w % 7 === 0) throw new Error('link dropped');
        return { kind: 'accepted', carrierIds: [`c${w}`] };
      },
      record: async (results: { work: number; outcome: SubmitOutcome }[]) => {
        if (recordFailures > 0) {
          recordFailures -= 1;
          throw new Error('database is locked');
        }
        recorded.push(...results);
      },
      nextDue: async () => null,
    },
  };
}

const options = (limiter = createRateLimiter(0)) => ({
  limiter,
  maxBatch: 10,
  loops: 2,
  maxSleepMs: 50,
  now: () => Date.now(),
  logger,
});

describe('dispatcher', () => {
  it('submits every claimed item once and records each result', async () => {
    const q = queue(Array.from({ length: 95 }, (_, i) => i + 1));
    const d = startDispatcher(q.ops, options());
    await new Promise((r) => setTimeout(r, 200));
    await d.stop();
    expect(q.recorded.map((r) => r.work).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 95 }, (_, i) => i + 1),
    );
  });

  it('turns a throwing submit into a retry outcome instead of losing the item', async () => {
    const q = queue([7, 8]);
    const d = startDispatcher(q.ops, options());
    await new Promise((r) => setTimeout(r, 100));
    await d.stop();
    expect(q.recorded.find((r) => r.work === 7)?.outcome).toEqual({ kind: 'retry', reason: 'link dropped' });
  });

  it('keeps trying to record results the carrier already has', async () => {
    const q = queue([1, 2, 3]);
    q.failRecords(2);
    const d = startDispatcher(q.ops, options());
    await new Promise((r) => setTimeout(r, 800));
    await d.stop();
    expect(q.recorded.map((r) => r.work).sort()).toEqual([1, 2, 3]);
  });

  it('stop() waits for the batch in hand', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const recorded: number[] = [];
    const items = [1];
    const d = startDispatcher(
      {
        claim: async () => items.splice(0, 1),
        submit: async () => {
          await gate;
          return { kind: 'accepted', carrierIds: ['x'] };
        },
        record: async (results) => {
          recorded.push(...results.map((r) => r.work));
        },
        nextDue: async () => null,
      },
      options(),
    );
    await new Promise((r) => setTimeout(r, 30));
    const stopped = d.stop();
    setTimeout(release, 50);
    await stopped;
    expect(recorded).toEqual([1]);
  });

  it('claims at most ~200 ms of the rate, so other accounts are not stuck behind a batch', () => {
    expect(batchSize(500, 0)).toBe(500);
    expect(batchSize(500, 100)).toBe(20);
    expect(batchSize(500, 1)).toBe(1);
    expect(batchSize(500, 100_000)).toBe(500);
  });
});

describe('rate limiter', () => {
  it('holds a rate over a second after the initial burst', async () => {
    let clock = 0;
    const limiter = createRateLimiter(100, () => clock);
    const start = Date.now();
    for (let i = 0; i < 100; i++) await limiter.take();
    expect(Date.now() - start).toBeLessThan(100);
    // The bucket is empty: the next tokens come at the rate (clock advanced by the test).
    let taken = 0;
    const pending = Array.from({ length: 10 }, () => limiter.take().then(() => (taken += 1)));
    clock += 50;
    await Promise.all(pending);
    expect(taken).toBe(10);
  });

  it('is a no-op when unlimited', async () => {
    const limiter = createRateLimiter(0);
    for (let i = 0; i < 10_000; i++) await limiter.take();
    expect(limiter.ratePerSecond).toBe(0);
  });
});
