/**
 * Message-level work: releasing messages whose send_at has come (their recipients become
 * send work), expiring those whose expires_at passed, and the periodic sweeps (receipts that
 * never came, receipts that overtook their submit on another node). All of it is done inside
 * the turn's transaction: nothing is held across a carrier call.
 */
import type { TickOps } from '../store/engine-store.js';
import type { Stage } from './stage.js';

export interface MessageJobStageOptions {
  /** The connector whose orphan receipts the sweep adopts. */
  readonly connector: string;
  readonly receiptTimeoutMs: number;
  /** Recipients became submitted: send work is due. */
  readonly onReleased: () => void;
}

export interface MessageJobStage extends Stage<never, never> {
  /** A message job may be due (a scheduled message accepted or released, the idle timer). */
  wake(): void;
  close(): void;
  /** When the next sweep is due. */
  nextSweepAt(): number;
}

/** Jobs run per turn; a message's release itself is bounded (CONTROL_CHUNK recipients). */
const JOB_BATCH = 200;
const ORPHAN_SWEEP_MS = 1_000;
/** Recipients timed out per turn. */
const TIMEOUT_BATCH = 1_000;

export function createMessageJobStage(options: MessageJobStageOptions): MessageJobStage {
  let maybeDue = true;
  let closed = false;
  let nextOrphanSweep = 0;
  let nextTimeoutSweep = 0;
  // Checked often enough that a short receipt timeout (a test's) is honoured.
  const timeoutSweepMs = Math.min(30_000, Math.max(100, Math.floor(options.receiptTimeoutMs / 4)));
  return {
    name: 'message-jobs',
    takeOutcomes: () => [],
    record: () => Promise.resolve(),
    wantsClaim: (now) => !closed && (maybeDue || now >= nextOrphanSweep || now >= nextTimeoutSweep),
    async claim(ops: TickOps, now) {
      if (maybeDue) {
        const run = await ops.runMessageJobs(now, JOB_BATCH);
        if (run.ran < JOB_BATCH) maybeDue = false;
        if (run.changed.some((c) => c.status === 'submitted')) options.onReleased();
      }
      if (now >= nextTimeoutSweep) {
        const timedOut = await ops.sweepReceiptTimeouts(now, options.receiptTimeoutMs, TIMEOUT_BATCH);
        nextTimeoutSweep = timedOut.length === TIMEOUT_BATCH ? now : now + timeoutSweepMs;
      }
      if (now >= nextOrphanSweep) {
        await ops.sweepOrphans(options.connector, now);
        nextOrphanSweep = now + ORPHAN_SWEEP_MS;
      }
      return [];
    },
    handle: () => {},
    restore: () => {},
    wake() {
      maybeDue = true;
    },
    close() {
      closed = true;
    },
    nextSweepAt: () => Math.min(nextOrphanSweep, nextTimeoutSweep),
  };
}
