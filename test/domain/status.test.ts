import { describe, expect, it } from 'vitest';
import {
  STATUSES,
  STATUS_CODES,
  TRANSITIONS,
  canTransition,
  isFinal,
  sourcesOf,
} from '../../src/domain/status.js';

describe('recipient state machine (decisions §7)', () => {
  it('has the eleven statuses with their codes', () => {
    expect(STATUS_CODES).toEqual({
      pending: 100,
      submitted: 110,
      sent: 120,
      delivered: 200,
      cancelled: 400,
      expired: 410,
      aborted: 420,
      rejected: 430,
      failed: 440,
      deleted: 450,
      unknown: 500,
    });
  });

  it('final statuses are delivered and everything after it, and never change', () => {
    expect(STATUSES.filter(isFinal)).toEqual([
      'delivered',
      'cancelled',
      'expired',
      'aborted',
      'rejected',
      'failed',
      'deleted',
      'unknown',
    ]);
    for (const from of STATUSES.filter(isFinal))
      for (const to of STATUSES) expect(canTransition(from, to)).toBe(false);
  });

  const allowed: [string, string[]][] = [
    ['pending', ['submitted', 'cancelled', 'expired', 'aborted']],
    ['submitted', ['sent', 'cancelled', 'expired', 'aborted', 'rejected', 'unknown']],
    ['sent', ['delivered', 'expired', 'rejected', 'failed', 'deleted', 'unknown']],
  ];
  it.each(allowed)('%s may move only to %j', (from, targets) => {
    for (const to of STATUSES)
      expect(canTransition(from as never, to), `${from} → ${to}`).toBe(targets.includes(to));
  });

  it('sourcesOf inverts the table', () => {
    expect(sourcesOf('cancelled')).toEqual(['pending', 'submitted']);
    expect(sourcesOf('rejected')).toEqual(['submitted', 'sent']);
    expect(sourcesOf('pending')).toEqual([]);
    for (const to of STATUSES) for (const from of sourcesOf(to)) expect(TRANSITIONS[from]).toContain(to);
  });
});
