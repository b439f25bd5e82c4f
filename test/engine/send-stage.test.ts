import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/engine/rate-limiter.js';
import { createSendRoom } from '../../src/engine/send-room.js';
import { createSendStage } from '../../src/engine/sends.js';
import type { SendWork, SubmitResult, TickOps } from '../../src/store/engine-store.js';

const work = (recipientId: number): SendWork => ({
  recipientId,
  messageId: 1,
  accountId: 1,
  to: `+6149157${String(recipientId).padStart(4, '0')}`,
  from: 'Acme',
  body: 'hi',
  attempts: 0,
  claimedAt: 0,
});

/**
 * A send stage over a carrier that accepts at once and a store whose claims hand out new
 * recipients as asked, up to `queued.count`; `claims` lists each claim's limit.
 */
function stageWithCapacity(capacity: number) {
  const room = createSendRoom();
  let next = 1;
  const claims: number[] = [];
  const queued = { count: Infinity };
  const stage = createSendStage({
    node: 'n1',
    connector: {
      name: 'sim',
      submit: (request) => Promise.resolve({ kind: 'accepted', carrierIds: [`c-${request.reference}`] }),
    },
    limiter: createRateLimiter(0),
    retryDelay: () => 1_000,
    capacity: () => capacity,
    room,
    maxClaim: 1_000,
    now: () => 0,
    logger: pino({ level: 'silent' }),
    onOutcome: () => {},
  });
  const ops = {
    recordSubmits: () => Promise.resolve({ changed: [], stale: 0 }),
    claimSends: (_node: string, _now: number, limit: number) => {
      claims.push(limit);
      return Promise.resolve(Array.from({ length: Math.min(limit, queued.count) }, () => work(next++)));
    },
  } as unknown as TickOps;
  /** One turn as the loop runs it: record what came back, claim, then hand the claim out. */
  const turn = async (fail = false) => {
    const outcomes: SubmitResult[] = stage.takeOutcomes(1_000);
    try {
      if (outcomes.length > 0) await stage.record(ops, outcomes, 0);
      const claimed = stage.wantsClaim(0) ? await stage.claim(ops, 0) : [];
      if (fail) throw new Error('the commit failed');
      stage.handle(claimed, outcomes);
    } catch {
      stage.restore(outcomes);
    }
    await stage.idle();
  };
  return { room, claims, queued, turn };
}

describe('the send stage and the room of its window', () => {
  it('claims again in the turn that records the results, not a turn later', async () => {
    const { room, claims, turn } = stageWithCapacity(200);
    await turn();
    expect(claims).toEqual([200]);
    // 200 answers wait to be recorded: the window is full until a turn records them.
    expect(room.peek()).toBe(0);
    await turn();
    expect(claims).toEqual([200, 200]);
    await turn();
    expect(claims).toEqual([200, 200, 200]);
  });

  it('puts the room back as it was when the turn rolls back', async () => {
    const { room, claims, queued, turn } = stageWithCapacity(50);
    await turn();
    expect(room.peek()).toBe(0);
    // 50 recorded, 10 claimed, then rolled back: the 50 results wait again, the claim never was.
    queued.count = 10;
    await turn(true);
    expect(claims).toEqual([50, 50]);
    expect(room.peek()).toBe(0);
    queued.count = Infinity;
    await turn();
    expect(claims).toEqual([50, 50, 50]);
    expect(room.peek()).toBe(0);
  });
});
