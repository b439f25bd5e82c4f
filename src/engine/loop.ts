/**
 * The engine's loop: one transaction per turn records every stage's outcomes and claims
 * every stage's next work, then the claimed work is handled. While a turn runs, outcomes
 * pile up for the next one, so under load each transaction carries many of them and a
 * commit's fixed cost (SQLite's single writer, a PostgreSQL round trip) is shared; at low
 * load a turn carries one outcome and waits for nothing.
 */
import type { Logger } from 'pino';
import type { EngineStore } from '../store/engine-store.js';
import type { DeliveryHold } from '../store/webhooks.js';
import type { Stage } from './stage.js';

export interface LoopOptions {
  readonly store: Pick<EngineStore, 'tick'>;
  /** In turn order; the last one hands over the webhooks status changes queued (see turn()). */
  readonly stages: readonly Stage[];
  /** The hold for webhooks this turn's status changes queue (the webhook stage's room). */
  readonly hold?: () => DeliveryHold;
  /** When idle: the earliest time some work becomes due (null: only a wake-up brings work). */
  readonly nextDue: () => Promise<number | null>;
  /** The idle timer fired: work may be due now. */
  readonly onDue: () => void;
  /** Longest idle sleep, so work another node queued is noticed. */
  readonly maxSleepMs: number;
  readonly now: () => number;
  readonly logger: Logger;
}

export interface Loop {
  /** Something waits to be recorded, or work may be due: a turn runs soon. */
  request(): void;
  /** Resolves once a turn has run after every outcome that exists now was produced. */
  settled(): Promise<void>;
  /** Stops after the turn in progress; outcomes still waiting are not recorded. */
  stop(): Promise<void>;
}

const FAILURE_BACKOFF_MS = [100, 250, 500, 1_000, 2_000, 5_000] as const;
/**
 * Outcomes one turn takes of each stage. Bounded so a turn is short (on SQLite the API waits
 * for it) and so a turn that fails takes less the next time: halved after every failure, one
 * bad outcome ends up alone and the rest get through (it is logged at every try).
 */
const MAX_OUTCOMES_PER_TURN = 2_000;
/**
 * Under load the loop goes idle between bursts hundreds of times a second, and asking the store
 * when work is next due costs a query per kind of work: at 2,000 messages/s that was a fifth of
 * the engine's statements. It is asked once the loop has been idle this long, so a burst that
 * resumes meanwhile never asks; work due sooner than this waits at most this much longer.
 */
const IDLE_SETTLE_MS = 5;

export function startLoop(options: LoopOptions): Loop {
  const { store, stages, logger, now } = options;
  let running = false;
  let again = false;
  let stopped = false;
  let failures = 0;
  let limit = MAX_OUTCOMES_PER_TURN;
  let idleTimer: NodeJS.Timeout | null = null;
  let backoffTimer: NodeJS.Timeout | null = null;
  let current: Promise<void> = Promise.resolve();
  /** The next-due read of an idle loop, which stop() waits for like a turn. */
  let asking: Promise<void> = Promise.resolve();
  let waiters: (() => void)[] = [];

  const schedule = () => {
    if (stopped || backoffTimer !== null) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    setImmediate(() => {
      current = runTurns();
    });
  };

  const runTurns = async () => {
    for (;;) {
      again = false;
      let busy = false;
      try {
        busy = await turn();
        failures = 0;
        limit = Math.min(MAX_OUTCOMES_PER_TURN, limit * 2);
      } catch (error) {
        const delay = FAILURE_BACKOFF_MS[Math.min(failures, FAILURE_BACKOFF_MS.length - 1)]!;
        failures += 1;
        limit = Math.max(1, Math.floor(limit / 2));
        logger.error({ err: error, retryInMs: delay }, 'engine turn failed; its work waits for the next');
        running = false;
        backoffTimer = setTimeout(() => {
          backoffTimer = null;
          schedule();
        }, delay);
        return;
      }
      if (stopped) break;
      if (!busy && !again) break;
    }
    running = false;
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
    if (!stopped) settleThenSleep();
  };

  const settleThenSleep = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleTimer = null;
      asking = sleepUntilDue();
    }, IDLE_SETTLE_MS);
  };

  /** One transaction; returns whether it did anything (then another turn follows at once). */
  const turn = async (): Promise<boolean> => {
    const at = now();
    const outcomes = stages.map((s) => s.takeOutcomes(limit));
    const claiming = stages.map((s) => !stopped && s.wantsClaim(at));
    if (outcomes.every((o) => o.length === 0) && !claiming.some(Boolean)) return false;
    const hold = options.hold?.();
    let claimed: unknown[][];
    try {
      claimed = await store.tick(async (ops) => {
        for (let i = 0; i < stages.length; i++) {
          if (outcomes[i]!.length > 0) await stages[i]!.record(ops, outcomes[i]!, at);
        }
        const work: unknown[][] = [];
        for (let i = 0; i < stages.length; i++) {
          // The last stage hands over the webhooks this turn's status changes queue, so they are
          // settled just before it: no sooner, since a message's counters stay locked from their
          // update to the commit, and another loop or node moving the same message waits.
          if (i === stages.length - 1) await ops.settle();
          // Asked again: recording may have made work (a status change's webhook to send).
          work.push(
            !stopped && (claiming[i] || stages[i]!.wantsClaim(at)) ? await stages[i]!.claim(ops, at) : [],
          );
        }
        return work;
      }, hold);
    } catch (error) {
      stages.forEach((s, i) => s.restore(outcomes[i]!));
      throw error;
    }
    stages.forEach((s, i) => s.handle(claimed[i]!, outcomes[i]!));
    return true;
  };

  const sleepUntilDue = async () => {
    let next: number | null = null;
    try {
      next = await options.nextDue();
    } catch (error) {
      logger.warn({ err: error }, 'reading when work is next due failed');
    }
    // A turn ran, or another settle began, while the store answered: that one decides the sleep.
    if (stopped || running || idleTimer !== null) return;
    const wait = next === null ? options.maxSleepMs : Math.min(options.maxSleepMs, Math.max(1, next - now()));
    idleTimer = setTimeout(() => {
      idleTimer = null;
      options.onDue();
      schedule();
    }, wait);
  };

  return {
    request: schedule,
    settled() {
      if (!running && backoffTimer === null) {
        schedule();
      }
      return new Promise((resolve) => waiters.push(resolve));
    },
    async stop() {
      stopped = true;
      if (idleTimer) clearTimeout(idleTimer);
      if (backoffTimer) clearTimeout(backoffTimer);
      idleTimer = null;
      backoffTimer = null;
      await current;
      await asking;
      for (const resolve of waiters.splice(0)) resolve();
    },
  };
}
