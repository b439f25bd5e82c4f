/**
 * Sending: submitted recipients are claimed for this node, handed to the carrier connector,
 * and each outcome (accepted with its carrier ids, refused, or try again later) is recorded
 * in a later turn, guarded by the node still holding the recipient.
 */
import type { Logger } from 'pino';
import type { CarrierConnector, SubmitOutcome } from '../carriers/port.js';
import type { RetryDelay, SendWork, SubmitResult, TickOps } from '../store/engine-store.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { RateLimiter } from './rate-limiter.js';
import type { SendRoom } from './send-room.js';
import type { Stage } from './stage.js';

export interface SendStageOptions {
  readonly node: string;
  readonly connector: Pick<CarrierConnector, 'name' | 'submit'>;
  readonly limiter: RateLimiter;
  readonly retryDelay: RetryDelay;
  /** Submits worth having outstanding (claimed and not yet recorded) at once. */
  readonly capacity: () => number;
  /** The room left of that capacity, shared with the API that hands recipients over. */
  readonly room: SendRoom;
  /** Most recipients claimed in one turn. */
  readonly maxClaim: number;
  readonly now: () => number;
  readonly logger: Logger;
  /** An outcome is waiting to be recorded. */
  readonly onOutcome: () => void;
  /** Outcomes were recorded (committed): receipts that waited for them may go. */
  readonly onRecorded?: () => void;
  /** Results for recipients this node no longer held, dropped by the guard. */
  readonly onStale?: (count: number) => void;
  /** Where each SMSC answer's time is counted. */
  readonly metrics?: Pick<EngineMetrics, 'submitObserved'>;
}

export interface SendStage extends Stage<SubmitResult, SendWork> {
  /** Send work may be due (a POST, a release, a retry's time, a taken-over node). */
  wake(): void;
  /** Recipients this node holds already (accepted here, room taken): submitted at once. */
  adopt(work: readonly SendWork[]): void;
  /** Claims no more. */
  close(): void;
  /** Resolves when every submit started has its outcome. */
  idle(): Promise<void>;
  /** Submits started and not yet answered. */
  readonly submitting: number;
  /** Whether `carrierId` was accepted by an outcome not yet recorded (committed). */
  unrecorded(carrierId: string): boolean;
}

export function createSendStage(options: SendStageOptions): SendStage {
  const { node, connector, logger, now } = options;
  let results: SubmitResult[] = [];
  const unrecorded = new Set<string>();
  let submitting = 0;
  let maybeDue = true;
  let closed = false;
  const idleWaiters: (() => void)[] = [];
  const { room } = options;
  /** Room the turn in progress gave back (recorded) and took (claimed), put right if it rolls back. */
  let turn = { recorded: 0, claimed: 0 };
  /** The capacity the shared room was last given (it follows the connector's binds). */
  let applied = 0;
  const capacity = () => {
    const now = closed ? 0 : options.capacity();
    if (now !== applied) room.give(now - applied);
    applied = now;
    return now;
  };
  capacity();

  /**
   * A turn claims once a useful batch fits: topping up one slot at a time would spend a claim
   * statement per recipient while the window is full.
   */
  const threshold = () => Math.max(1, Math.min(50, Math.floor(capacity() / 4)));

  const submit = async (work: SendWork) => {
    let outcome: SubmitOutcome;
    let started = 0;
    try {
      await options.limiter.take();
      started = performance.now();
      outcome = await connector.submit({
        reference: `r${work.recipientId}`,
        from: work.from,
        to: work.to,
        body: work.body,
        requestReceipt: true,
      });
    } catch (error) {
      // A connector bug or a dropped link must not lose the recipient: try again later.
      outcome = { kind: 'retry', reason: error instanceof Error ? error.message : String(error) };
    }
    // Only an SMSC's answer is timed: a retry may be a timeout or no bind at all.
    if (outcome.kind === 'accepted' || outcome.kind === 'rejected') {
      options.metrics?.submitObserved(
        outcome.connector ?? connector.name,
        (performance.now() - started) / 1000,
      );
    }
    if (outcome.kind === 'accepted') for (const id of outcome.carrierIds) unrecorded.add(id);
    results.push({ work, outcome, at: now() });
    submitting -= 1;
    if (submitting === 0) for (const resolve of idleWaiters.splice(0)) resolve();
    options.onOutcome();
  };

  return {
    name: 'sends',
    takeOutcomes: (limit) => results.splice(0, limit),
    async record(ops: TickOps, outcomes, at) {
      const { stale } = await ops.recordSubmits(node, connector.name, outcomes, options.retryDelay, at);
      // What this turn records is no longer outstanding, so this turn's claim may refill it. Given
      // back only after the commit, a window's results were claimed again only a turn later, and
      // turns alternated: record, record and claim, claim only. Once closed, none is given back.
      turn.recorded = closed ? 0 : outcomes.length;
      room.give(turn.recorded);
      if (stale > 0) {
        logger.warn({ stale }, 'submit outcomes for recipients this node no longer held; dropped');
        options.onStale?.(stale);
      }
      // A retry is due again later; the loop's idle timer reads when.
      if (outcomes.some((r) => r.outcome.kind === 'retry')) maybeDue = true;
    },
    wantsClaim: () => !closed && maybeDue && room.peek() >= threshold(),
    async claim(ops, at) {
      const limit = room.take(Math.min(options.maxClaim, room.peek()));
      if (limit <= 0) return [];
      let work: SendWork[] = [];
      try {
        work = await ops.claimSends(node, at, limit);
      } finally {
        room.give(limit - work.length);
      }
      turn.claimed = work.length;
      if (work.length < limit) maybeDue = false;
      return work;
    },
    handle(work, recorded) {
      turn = { recorded: 0, claimed: 0 };
      for (const { outcome } of recorded) {
        if (outcome.kind === 'accepted') for (const id of outcome.carrierIds) unrecorded.delete(id);
      }
      if (recorded.length > 0) options.onRecorded?.();
      submitting += work.length;
      for (const w of work) void submit(w);
    },
    adopt(work) {
      submitting += work.length;
      for (const w of work) void submit(w);
    },
    restore(outcomes) {
      // The turn rolled back: what it recorded is outstanding again, what it claimed was never
      // held and is due again. If the API took the room meanwhile, the room is below zero until
      // results are recorded: over capacity for a moment, never over it for long.
      room.give(turn.claimed - turn.recorded);
      maybeDue = true;
      turn = { recorded: 0, claimed: 0 };
      results = [...outcomes, ...results];
    },
    wake() {
      maybeDue = true;
    },
    close() {
      closed = true;
      capacity();
    },
    unrecorded: (carrierId) => unrecorded.has(carrierId),
    get submitting() {
      return submitting;
    },
    idle() {
      if (submitting === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
