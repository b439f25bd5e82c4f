import { describe, expect, it } from 'vitest';
import { classifyResponse, nextAttemptDelay, parseRetryAfter } from '../../src/webhooks/retry-policy.js';

describe('classifyResponse', () => {
  it.each([
    [200, 'accepted'],
    [201, 'accepted'],
    [204, 'accepted'],
    [299, 'accepted'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
    [599, 'retry'],
    [null, 'retry'],
    [301, 'give_up'],
    [302, 'give_up'],
    [304, 'give_up'],
    [400, 'give_up'],
    [401, 'give_up'],
    [404, 'give_up'],
    [408, 'give_up'],
    [410, 'give_up'],
    [428, 'give_up'],
    [430, 'give_up'],
    [600, 'give_up'],
  ] as const)('%s → %s', (status, outcome) => {
    expect(classifyResponse(status)).toBe(outcome);
  });
});

describe('nextAttemptDelay', () => {
  const schedule = [5_000, 300_000, 1_800_000] as const;
  const middle = () => 0.5; // no jitter

  it('follows the schedule: entry i after attempt i + 1, then gives up', () => {
    expect(nextAttemptDelay({ attemptsMade: 0, schedule, random: middle })).toBe(0);
    expect(nextAttemptDelay({ attemptsMade: 1, schedule, random: middle })).toBe(5_000);
    expect(nextAttemptDelay({ attemptsMade: 2, schedule, random: middle })).toBe(300_000);
    expect(nextAttemptDelay({ attemptsMade: 3, schedule, random: middle })).toBe(1_800_000);
    expect(nextAttemptDelay({ attemptsMade: 4, schedule, random: middle })).toBeNull();
    expect(nextAttemptDelay({ attemptsMade: 1, schedule: [], random: middle })).toBeNull();
  });

  it('jitters by at most ±10%', () => {
    expect(nextAttemptDelay({ attemptsMade: 1, schedule, random: () => 0 })).toBe(4_500);
    expect(nextAttemptDelay({ attemptsMade: 1, schedule, random: () => 0.999999 })).toBe(5_500);
    for (let i = 0; i < 200; i++) {
      const d = nextAttemptDelay({ attemptsMade: 2, schedule }) ?? -1;
      expect(d).toBeGreaterThanOrEqual(270_000);
      expect(d).toBeLessThanOrEqual(330_000);
    }
  });

  it('honours a longer Retry-After, unjittered, capped at the longest scheduled delay', () => {
    expect(nextAttemptDelay({ attemptsMade: 1, schedule, retryAfterMs: 60_000, random: () => 0 })).toBe(
      60_000,
    );
    expect(nextAttemptDelay({ attemptsMade: 1, schedule, retryAfterMs: 86_400_000, random: middle })).toBe(
      1_800_000,
    );
  });

  it('ignores a Retry-After shorter than the schedule, and never adds attempts', () => {
    expect(nextAttemptDelay({ attemptsMade: 2, schedule, retryAfterMs: 1_000, random: middle })).toBe(
      300_000,
    );
    expect(
      nextAttemptDelay({ attemptsMade: 3, schedule, retryAfterMs: 2_000_000, random: () => 0.999999 }),
    ).toBe(1_980_000);
    expect(nextAttemptDelay({ attemptsMade: 4, schedule, retryAfterMs: 1_000, random: middle })).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-03-01T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads the three HTTP-date forms as GMT', () => {
    expect(parseRetryAfter('Fri, 01 Mar 2024 12:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Friday, 01-Mar-24 12:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Fri Mar  1 12:01:30 2024', now)).toBe(90_000);
  });

  it('gives 0 for a date in the past', () => {
    expect(parseRetryAfter('Fri, 01 Mar 2024 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent or malformed values', () => {
    for (const bad of [
      undefined,
      '',
      '-5',
      '1.5',
      '2x',
      'soon',
      '2024-03-01T12:01:30Z',
      'Fri, 01 Mar 2024',
    ]) {
      expect(parseRetryAfter(bad, now)).toBeUndefined();
    }
  });
});
