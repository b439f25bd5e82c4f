import type { Logger } from 'pino';
import { createSleeper } from './sleeper.js';

/** The operations a runner needs, as functions: testable without a database. */
export interface RunnerOps<J> {
  /** Claims due jobs (with a lease held by this worker). */
  claim(): Promise<J[]>;
  /**
   * Does the claimed jobs' work and completes them, together (one transaction for many small
   * jobs). If it throws, each job is handled alone, so one bad job cannot hold back the rest.
   */
  handle(jobs: J[]): Promise<void>;
  fail(job: J, error: unknown): Promise<void>;
  /** Epoch ms when the next job becomes claimable, or null when there is none. */
  nextDue(): Promise<number | null>;
}

export interface RunnerOptions {
  readonly name: string;
  readonly now: () => number;
  readonly logger: Logger;
  /** Longest sleep even with nothing due, so other nodes' work is noticed. */
  readonly maxSleepMs: number;
}

export interface Runner {
  wake(): void;
  /** Stops claiming and resolves when the job in hand is finished. */
  stop(): Promise<void>;
}

/** claim → handle → complete/fail, sleeping until the next due job or a wake-up. */
export function startRunner<J>(ops: RunnerOps<J>, options: RunnerOptions): Runner {
  const sleeper = createSleeper();
  let running = true;
  const handleAll = async (jobs: J[]) => {
    try {
      await ops.handle(jobs);
      return;
    } catch (error) {
      if (jobs.length === 1) return failed(jobs[0]!, error);
    }
    for (const job of jobs) {
      try {
        await ops.handle([job]);
      } catch (error) {
        await failed(job, error);
      }
    }
  };
  const failed = async (job: J, error: unknown) => {
    options.logger.warn({ err: error, runner: options.name }, 'job failed; it will be retried');
    await ops.fail(job, error);
  };
  const loop = (async () => {
    while (running) {
      try {
        const jobs = await ops.claim();
        if (jobs.length > 0) await handleAll(jobs);
        if (jobs.length > 0) continue;
        const next = await ops.nextDue();
        const wait = next === null ? options.maxSleepMs : Math.min(options.maxSleepMs, next - options.now());
        if (running) await sleeper.sleep(Math.max(wait, 1));
      } catch (error) {
        options.logger.error({ err: error, runner: options.name }, 'runner error; backing off');
        if (running) await sleeper.sleep(1000);
      }
    }
  })();
  return {
    wake: () => sleeper.wake(),
    async stop() {
      running = false;
      sleeper.wake();
      await loop;
    },
  };
}
