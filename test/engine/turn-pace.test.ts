/**
 * The engine loop's pace: outcomes that arrive just after a turn wait up to 10 ms to share the
 * next one, unless a stage says something outside is blocked on them (Stage.dueBy). Fake
 * timers: what is checked is which outcomes share a turn, and that nothing waits for the pace
 * when it must not.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { startLoop, type Loop } from '../../src/engine/loop.js';
import { createCarrierEventStage } from '../../src/engine/carrier-events.js';
import type { Stage } from '../../src/engine/stage.js';
import { createSendStage } from '../../src/engine/sends.js';
import { createSendRoom } from '../../src/engine/send-room.js';
import { createRateLimiter } from '../../src/engine/rate-limiter.js';
import type { CarrierReceipt, SubmitOutcome } from '../../src/carriers/port.js';
import type { EngineStore, SendWork, TickOps } from '../../src/store/engine-store.js';

/** A stage that only records: each turn's outcomes are kept, in order. */
function recordingStage() {
  let waiting: string[] = [];
  let urgent = false;
  const turns: string[][] = [];
  const stage: Stage<string, never> = {
    name: 'test',
    dueBy: () => (urgent && waiting.length > 0 ? 0 : Infinity),
    takeOutcomes: (limit) => waiting.splice(0, limit),
    record: async (_ops, outcomes) => {
      turns.push([...outcomes]);
    },
    wantsClaim: () => false,
    claim: async () => [],
    handle: () => {},
    restore: (outcomes) => {
      waiting = [...outcomes, ...waiting];
    },
  };
  return {
    stage,
    turns,
    add(outcome: string) {
      waiting.push(outcome);
    },
    setUrgent(value: boolean) {
      urgent = value;
    },
  };
}

/** A store whose transaction only runs the turn's callback. */
const store: Pick<EngineStore, 'tick'> = {
  tick: (work) => work({} as TickOps),
};

function loopOf(stages: Stage[]): Loop {
  return startLoop({
    store,
    stages,
    nextDue: async () => null,
    onDue: () => {},
    maxSleepMs: 60_000,
    now: () => Date.now(),
    logger: pino({ level: 'silent' }),
  });
}

describe('the engine loop’s pace', () => {
  let loop: Loop | null = null;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance', 'Date'] });
  });
  afterEach(async () => {
    const stopping = loop?.stop();
    await vi.runAllTimersAsync();
    await stopping;
    loop = null;
    vi.useRealTimers();
  });

  it('runs the first turn after a quiet spell at once', async () => {
    const s = recordingStage();
    loop = loopOf([s.stage]);
    s.add('a');
    loop.request();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.turns).toEqual([['a']]);
  });

  it('gathers what arrives within 10 ms of a turn into the next one', async () => {
    const s = recordingStage();
    loop = loopOf([s.stage]);
    s.add('a');
    loop.request();
    await vi.advanceTimersByTimeAsync(1);
    s.add('b');
    loop.request();
    await vi.advanceTimersByTimeAsync(3);
    s.add('c');
    loop.request();
    await vi.advanceTimersByTimeAsync(4);
    expect(s.turns).toEqual([['a']]);
    await vi.advanceTimersByTimeAsync(3);
    expect(s.turns).toEqual([['a'], ['b', 'c']]);
  });

  it('does not wait when a stage’s outcomes are due now', async () => {
    const s = recordingStage();
    loop = loopOf([s.stage]);
    s.add('a');
    loop.request();
    await vi.advanceTimersByTimeAsync(1);
    s.add('b');
    loop.request();
    await vi.advanceTimersByTimeAsync(1);
    expect(s.turns).toEqual([['a']]);
    // The pause already begun ends as soon as a stage becomes due.
    s.setUrgent(true);
    s.add('c');
    loop.request();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.turns).toEqual([['a'], ['b', 'c']]);
  });

  it('stops during a pause without running the turn', async () => {
    const s = recordingStage();
    loop = loopOf([s.stage]);
    s.add('a');
    loop.request();
    await vi.advanceTimersByTimeAsync(1);
    s.add('b');
    loop.request();
    await loop.stop();
    loop = null;
    await vi.advanceTimersByTimeAsync(20);
    expect(s.turns).toEqual([['a']]);
  });
});

describe('carrier events and the SMSC’s window', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const receipt = (n: number): CarrierReceipt => ({ carrierId: `c${n}`, state: 'delivered', at: 0 });

  /** Raises `n` receipts; their promises settle once a turn has acknowledged them. */
  const raise = (stage: ReturnType<typeof createCarrierEventStage>, from: number, n: number) => {
    for (let i = 0; i < n; i++) void stage.events.receipt(receipt(from + i));
  };
  /** A turn that takes every waiting event and acknowledges it. */
  const turn = (stage: ReturnType<typeof createCarrierEventStage>, during: () => void = () => {}) => {
    const taken = stage.takeOutcomes(1_000);
    during();
    stage.handle([], taken);
  };

  it('answers at once an SMSC that sends one receipt at a time', () => {
    const stage = createCarrierEventStage({ connector: 'smsc', onEvent: () => {} });
    for (let i = 0; i < 5; i++) {
      raise(stage, i, 1);
      // As many wait unanswered as ever did: the SMSC may be waiting for our response.
      expect(stage.dueBy!()).toBe(0);
      turn(stage);
    }
  });

  it('lets the receipts of an SMSC with room to spare wait for the pace', () => {
    const stage = createCarrierEventStage({ connector: 'smsc', onEvent: () => {} });
    raise(stage, 0, 1);
    // Five more came while a turn recorded the first: the SMSC's window is at least six.
    turn(stage, () => raise(stage, 1, 5));
    turn(stage);
    raise(stage, 6, 3);
    expect(stage.dueBy!()).toBe(Infinity);
    raise(stage, 9, 3);
    expect(stage.dueBy!()).toBe(0);
  });

  it('keeps a high mark for a span or two, then forgets it, as after a rebind to a smaller window', () => {
    const stage = createCarrierEventStage({ connector: 'smsc', onEvent: () => {} });
    raise(stage, 0, 1);
    turn(stage, () => raise(stage, 1, 9));
    turn(stage);
    vi.advanceTimersByTime(12_000);
    raise(stage, 10, 1);
    expect(stage.dueBy!()).toBe(Infinity);
    turn(stage);
    vi.advanceTimersByTime(25_000);
    raise(stage, 11, 1);
    expect(stage.dueBy!()).toBe(0);
  });
});

describe('sends and the submit window', () => {
  const work = (n: number): SendWork[] =>
    Array.from({ length: n }, (_, i) => ({
      recipientId: i + 1,
      messageId: 1,
      accountId: 1,
      to: '+61491570150',
      from: 'smsgw',
      body: 'hi',
      attempts: 0,
      claimedAt: 0,
    }));

  function sendStage(capacity: number) {
    const room = createSendRoom();
    const stage = createSendStage({
      node: 'n1',
      connector: {
        name: 'smsc',
        submit: async () => ({ kind: 'accepted', carrierIds: ['x'] }) as SubmitOutcome,
      },
      limiter: createRateLimiter(0),
      retryDelay: () => null,
      capacity: () => capacity,
      room,
      maxClaim: capacity,
      now: () => 0,
      logger: pino({ level: 'silent' }),
      onOutcome: () => {},
    });
    return { room, stage };
  }

  it('lets results wait while the window has room, and not once it is full', async () => {
    const { room, stage } = sendStage(100);
    room.take(10);
    stage.adopt(work(10));
    await stage.idle();
    expect(stage.dueBy!()).toBe(Infinity);
    room.take(90);
    stage.adopt(work(90));
    await stage.idle();
    // Every slot waits for a result to be recorded: submitting waits on this turn.
    expect(stage.dueBy!()).toBe(0);
  });

  it('claims again at once while the store has more than a claim takes', async () => {
    const { stage } = sendStage(100);
    const claimed = await stage.claim(
      { claimSends: async (_node: string, _at: number, limit: number) => work(limit) } as unknown as TickOps,
      0,
    );
    expect(claimed).toHaveLength(100);
    stage.handle(claimed, []);
    await stage.idle();
    const results = stage.takeOutcomes(1_000);
    stage.handle([], results);
    // The window is free again and the last claim came back full.
    expect(stage.dueBy!()).toBe(0);
  });
});
