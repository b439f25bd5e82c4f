/** Response timeouts: one timer for all outstanding requests, each still failing on time. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makePdu, type Pdu } from '../../../../src/carriers/smpp/pdu/index.js';
import { PendingRequests } from '../../../../src/carriers/smpp/session/pending.js';
import type { Reply } from '../../../../src/carriers/smpp/session/reply.js';

describe('PendingRequests', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const outcome = (reply: Promise<Reply>) => {
    const seen: { reply: Reply | null } = { reply: null };
    void reply.then((r) => (seen.reply = r));
    return seen;
  };

  it('times each request out after its own timeout, a shorter one behind a longer one too', async () => {
    const pending = new PendingRequests();
    const long = outcome(pending.track(1, 5_000, 'submit_sm'));
    const short = outcome(pending.track(2, 1_000, 'enquire_link'));
    await vi.advanceTimersByTimeAsync(999);
    expect(short.reply).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(short.reply).toEqual({
      kind: 'failed',
      error: 'timeout',
      detail: 'no response to enquire_link within 1000 ms',
    });
    expect(long.reply).toBeNull();
    await vi.advanceTimersByTimeAsync(4_000);
    expect(long.reply).toMatchObject({ kind: 'failed', error: 'timeout' });
    expect(pending.size).toBe(0);
  });

  it('a request answered in time never times out, and the ones after it still do', async () => {
    const pending = new PendingRequests();
    const answered = outcome(pending.track(1, 1_000, 'submit_sm'));
    await vi.advanceTimersByTimeAsync(500);
    const later = outcome(pending.track(2, 1_000, 'submit_sm'));
    const resp: Pdu = makePdu('submit_sm_resp', { sequenceNumber: 1, messageId: 'a' });
    expect(pending.respond(resp)).toBe(true);
    await vi.advanceTimersByTimeAsync(600);
    expect(answered.reply).toEqual({ kind: 'response', pdu: resp });
    expect(later.reply).toBeNull();
    await vi.advanceTimersByTimeAsync(400);
    expect(later.reply).toMatchObject({ kind: 'failed', error: 'timeout' });
  });

  it('holds no timer once nothing is outstanding', async () => {
    const pending = new PendingRequests();
    void pending.track(1, 1_000, 'submit_sm');
    expect(vi.getTimerCount()).toBe(1);
    pending.respond(makePdu('submit_sm_resp', { sequenceNumber: 1 }));
    expect(vi.getTimerCount()).toBe(0);
  });
});
