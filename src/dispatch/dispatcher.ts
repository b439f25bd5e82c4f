import type { Logger } from 'pino';
import type { SubmitOutcome } from '../carriers/port.js';
import { createSleeper } from '../outbox/sleeper.js';
import type { RateLimiter } from './rate-limiter.js';

/** What the dispatcher needs, as functions (graphile-worker style): no database or network. */
export interface DispatchOps<W> {
  claim(limit: number): Promise<W[]>;
  submit(work: W): Promise<SubmitOutcome>;
  record(results: { work: W; outcome: SubmitOutcome }[]): Promise<void>;
  nextDue(): Promise<number | null>;
}

export interface DispatcherOptions {
  readonly limiter: RateLimiter;
  /** Most recipients claimed at once; smaller at low rates so fairness holds (see batchSize). */
  readonly maxBatch: number;
  /** Independent claim → submit → record loops, so one batch's carrier round trips overlap the next's. */
  readonly loops: number;
  readonly maxSleepMs: number;
  readonly now: () => number;
  readonly logger: Logger;
}

const RECORD_EVERY_MS = 10;
const RECORD_MAX = 200;

export interface Dispatcher {
  wake(): void;
  /** Stops claiming; resolves when every claimed recipient has been submitted and recorded. */
  stop(): Promise<void>;
}

/**
 * A batch never holds more than ~200 ms of the connector's rate: work claimed is committed to
 * this worker, so a big batch at a low rate would make other accounts wait behind it.
 */
export function batchSize(maxBatch: number, ratePerSecond: number): number {
  return ratePerSecond > 0 ? Math.max(1, Math.min(maxBatch, Math.ceil(ratePerSecond / 5))) : maxBatch;
}

export function startDispatcher<W>(ops: DispatchOps<W>, options: DispatcherOptions): Dispatcher {
  const sleepers = Array.from({ length: options.loops }, () => createSleeper());
  const limit = batchSize(options.maxBatch, options.limiter.ratePerSecond);
  let running = true;

  const submitOne = async (work: W) => {
    await options.limiter.take();
    let outcome: SubmitOutcome;
    try {
      outcome = await ops.submit(work);
    } catch (error) {
      // A connector bug or a dropped link must not lose the recipient: try again later.
      outcome = { kind: 'retry', reason: error instanceof Error ? error.message : String(error) };
    }
    return { work, outcome };
  };

  const record = async (results: { work: W; outcome: SubmitOutcome }[]) => {
    // The carrier has these; keep trying to write them down, or their leases expire and they
    // are sent again. Only a stop gives up, leaving exactly the documented duplicate window.
    for (let delay = 100; ; delay = Math.min(delay * 2, 5000)) {
      try {
        await ops.record(results);
        return;
      } catch (error) {
        options.logger.error(
          { err: error, count: results.length },
          'recording submit results failed; retrying',
        );
        if (!running) throw error;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };

  /**
   * Results are recorded as they arrive (every RECORD_EVERY_MS or RECORD_MAX of them), not at
   * the end of the batch: between the carrier's accept and our commit lies the only window in
   * which a crash can cause a duplicate, so it is kept to milliseconds.
   */
  const submitBatch = async (works: W[]) => {
    const buffer: { work: W; outcome: SubmitOutcome }[] = [];
    let recording = Promise.resolve();
    const flush = () => {
      const batch = buffer.splice(0);
      if (batch.length > 0) recording = recording.then(() => record(batch));
    };
    const timer = setInterval(flush, RECORD_EVERY_MS);
    try {
      await Promise.all(
        works.map(async (work) => {
          buffer.push(await submitOne(work));
          if (buffer.length >= RECORD_MAX) flush();
        }),
      );
    } finally {
      clearInterval(timer);
      flush();
      await recording;
    }
  };

  const loop = async (index: number) => {
    const sleeper = sleepers[index]!;
    while (running) {
      try {
        const works = await ops.claim(limit);
        if (works.length > 0) {
          await submitBatch(works);
          continue;
        }
        const next = await ops.nextDue();
        const wait = next === null ? options.maxSleepMs : Math.min(options.maxSleepMs, next - options.now());
        if (running) await sleeper.sleep(Math.max(wait, 1));
      } catch (error) {
        options.logger.error({ err: error }, 'dispatch loop error; backing off');
        if (running) await sleeper.sleep(1000);
      }
    }
  };
  const loops = sleepers.map((_, i) => loop(i));

  return {
    wake: () => sleepers.forEach((s) => s.wake()),
    async stop() {
      running = false;
      sleepers.forEach((s) => s.wake());
      await Promise.all(loops);
    },
  };
}
