import type { Kysely } from 'kysely';
import type { CarrierReceipt } from '../carriers/port.js';
import {
  cancelIn,
  expireIn,
  pauseIn,
  releaseManyIn,
  resumeIn,
  sweepReceiptTimeoutsIn,
  type PauseOutcome,
} from './control.js';
import type { Dialect } from './dialect.js';
import { JOB } from './job-kinds.js';
import { anyDue, claimJobs, completeJobs, nextDue, retryJob, unlockJobs, type OutboxJob } from './outbox.js';
import { adoptRecordedOrphansIn, applyReceiptsIn } from './receipts.js';
import type { Database } from './schema.js';
import {
  claimSendsIn,
  recordSubmitsIn,
  type RetryDelay,
  type SendWork,
  type SubmitResult,
} from './sending.js';
import type { Changed, TransitionSink } from './transitions.js';

export type { SendWork, SubmitResult, RetryDelay, OutboxJob, Changed, PauseOutcome };

/** What the sending engine needs from storage: whole operations, each one transaction. */
export interface EngineStore {
  claimSends(
    worker: string,
    connector: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<SendWork[]>;
  recordSubmits(
    worker: string,
    connector: string,
    results: readonly SubmitResult[],
    retryDelay: RetryDelay,
    now: number,
  ): Promise<Changed[]>;
  applyReceipts(connector: string, receipts: readonly CarrierReceipt[], now: number): Promise<Changed[]>;
  /** Claims release/expire work (message-level jobs). */
  claimMessageJobs(worker: string, now: number, leaseMs: number, limit: number): Promise<OutboxJob[]>;
  /**
   * Runs release and expire jobs in one transaction; completes each, or leaves it due again
   * when its message has recipients left.
   */
  runMessageJobs(jobs: readonly OutboxJob[], worker: string, now: number): Promise<Changed[]>;
  /** Puts a job back after a handler failure, with the error kept for a person to read. */
  retryJob(job: OutboxJob, worker: string, runAt: number, error: string): Promise<void>;
  nextDue(kinds: readonly string[]): Promise<number | null>;
  sweepReceiptTimeouts(now: number, timeoutMs: number, limit: number): Promise<Changed[]>;
  /** Applies orphan receipts whose part has been recorded since they arrived. */
  sweepOrphans(connector: string, now: number): Promise<Changed[]>;
  pause(messageId: number): Promise<PauseOutcome>;
  resume(messageId: number, now: number): Promise<PauseOutcome>;
  cancel(messageId: number, now: number): Promise<Changed[]>;
  /** Frees work a previous run of this same node still held when it died. */
  releaseLeases(worker: string): Promise<number>;
  /** Parts accepted by `connector` still waiting for a receipt (the simulator resumes them). */
  outstandingParts(connector: string): Promise<{ carrierId: string; to: string; sentAt: number }[]>;
}

const MESSAGE_JOBS = [JOB.release, JOB.expire];

/** PostgreSQL's deadlock and serialization-failure codes: the transaction can simply run again. */
const RETRYABLE_SQLSTATES: ReadonlySet<string> = new Set(['40P01', '40001']);

/**
 * Engine transactions touch recipients, messages and the outbox in data-dependent order, so
 * PostgreSQL may pick one as a deadlock victim; it rolled back whole, so running it again is safe.
 */
async function withDeadlockRetry<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= 5 || typeof code !== 'string' || !RETRYABLE_SQLSTATES.has(code)) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
    }
  }
}

export function engineStore(db: Kysely<Database>, dialect: Dialect, sink?: TransitionSink): EngineStore {
  const tx = <T>(run: (t: Kysely<Database>) => Promise<T>) =>
    withDeadlockRetry(() => db.transaction().execute(run));
  return {
    claimSends: async (worker, connector, now, leaseMs, limit) =>
      (await anyDue(db, [JOB.send], now))
        ? tx((t) => claimSendsIn(t, dialect, worker, connector, now, leaseMs, limit, sink))
        : [],
    recordSubmits: (worker, connector, results, retryDelay, now) =>
      tx((t) => recordSubmitsIn(t, dialect, worker, connector, results, retryDelay, now, sink)),
    applyReceipts: (connector, receipts, now) =>
      tx((t) => applyReceiptsIn(t, dialect, connector, receipts, now, sink)),
    claimMessageJobs: async (worker, now, leaseMs, limit) =>
      (await anyDue(db, MESSAGE_JOBS, now))
        ? tx((t) => claimJobs(t, dialect, { kinds: MESSAGE_JOBS }, worker, now, leaseMs, limit))
        : [],
    runMessageJobs: (jobs, worker, now) =>
      tx(async (t) => {
        const changed: Changed[] = [];
        const finished: number[] = [];
        const unfinished: number[] = [];
        const releases = jobs.filter((j) => j.kind === JOB.release);
        if (releases.length > 0) {
          const released = await releaseManyIn(
            t,
            dialect,
            releases.map((j) => j.subjectId),
            now,
            sink,
          );
          changed.push(...released.changed);
          for (const j of releases) (released.done.has(j.subjectId) ? finished : unfinished).push(j.id);
        }
        for (const job of jobs.filter((j) => j.kind === JOB.expire)) {
          const { more, changed: expired } = await expireIn(t, dialect, job.subjectId, now, sink);
          changed.push(...expired);
          (more ? unfinished : finished).push(job.id);
        }
        await completeJobs(t, finished, worker);
        await unlockJobs(t, worker, unfinished);
        return changed;
      }),
    retryJob: async (job, worker, runAt, error) => {
      await retryJob(db, job.id, worker, runAt, error.slice(0, 500));
    },
    nextDue: (kinds) => nextDue(db, kinds),
    sweepReceiptTimeouts: (now, timeoutMs, limit) =>
      tx((t) => sweepReceiptTimeoutsIn(t, dialect, now, timeoutMs, limit, sink)),
    sweepOrphans: (connector, now) => tx((t) => adoptRecordedOrphansIn(t, dialect, connector, now, sink)),
    pause: (messageId) => tx((t) => pauseIn(t, messageId)),
    resume: (messageId, now) => tx((t) => resumeIn(t, messageId, now)),
    cancel: (messageId, now) => tx((t) => cancelIn(t, dialect, messageId, now, sink)),
    releaseLeases: (worker) => unlockJobs(db, worker),
    outstandingParts: async (connector) => {
      const rows = await db
        .selectFrom('recipient_parts as p')
        .innerJoin('recipients as r', 'r.id', 'p.recipient_id')
        .select(['p.carrier_id', 'r.msisdn', 'r.sent_at'])
        .where('p.connector', '=', connector)
        .where('p.state', 'is', null)
        .where('r.status', '=', 'sent')
        .execute();
      return rows.map((r) => ({ carrierId: r.carrier_id, to: r.msisdn, sentAt: r.sent_at ?? 0 }));
    },
  };
}
