import type { Kysely } from 'kysely';
import { boundedCache } from '../bounded-cache.js';
import type { CarrierReceipt } from '../carriers/port.js';
import { cancelIn, pauseIn, resumeIn, sweepReceiptTimeoutsIn, type PauseOutcome } from './control.js';
import type { Dialect } from './dialect.js';
import {
  storeInboundIn,
  type InboundArrival,
  type InboundStoredSink,
  type StoredInbound,
} from './inbound.js';
import { nextJobDue, runMessageJobsIn, type MessageJobsRun } from './message-jobs.js';
import {
  beat,
  joinIn,
  leaveIn,
  listNodes,
  staleNodes,
  takeOverStaleIn,
  type InterruptedPolicy,
  type JoinOutcome,
  type NodeInfo,
  type TakeOver,
} from './nodes.js';
import { adoptRecordedOrphansIn, applyReceiptsIn, type AppliedReceipts } from './receipts.js';
import type { Database } from './schema.js';
import {
  anySendDue,
  claimSendsIn,
  nextSendDue,
  recordSubmitsIn,
  type MessageCache,
  type MessageForSending,
  type RecordedSubmits,
  type RetryDelay,
  type SendWork,
  type SubmitResult,
} from './sending.js';
import { deferChanges, settleChanges, type Changed, type TransitionSink } from './transitions.js';
import {
  claimDeliveriesIn,
  secretsOfIn,
  type AccountSecrets,
  type ClaimRequest,
  type ClaimResult,
} from './webhooks/claim.js';
import { nextDueDelivery } from './webhooks/next-due.js';
import { setHold, type DeliveryHold } from './webhooks/enqueue.js';
import { countedTransaction, type OnEntered } from './entered.js';
import { createSendMeter } from './send-budgets.js';
import { recordAttemptsIn, type DeliveryResult } from './webhooks/record.js';

export type {
  AppliedReceipts,
  SendWork,
  SubmitResult,
  RetryDelay,
  Changed,
  PauseOutcome,
  RecordedSubmits,
  MessageJobsRun,
  JoinOutcome,
  NodeInfo,
  TakeOver,
  InterruptedPolicy,
};

/**
 * What the engine writes in one transaction per turn of its loop (src/engine/tick.ts): the
 * outcomes that came in since the last one (submits, receipts, webhook attempts, inbound
 * messages) and the work it claims next. Every operation takes sets, so a turn costs a
 * constant number of statements however much it carries.
 */
export interface TickOps {
  recordSubmits(
    node: string,
    connector: string,
    results: readonly SubmitResult[],
    retryDelay: RetryDelay,
    now: number,
  ): Promise<RecordedSubmits>;
  applyReceipts(
    connector: string,
    receipts: readonly CarrierReceipt[],
    now: number,
  ): Promise<AppliedReceipts>;
  recordWebhookAttempts(node: string, results: readonly DeliveryResult[], now: number): Promise<void>;
  /** Stores inbound messages and queues their webhooks. */
  storeInbound(arrivals: readonly InboundArrival[], now: number): Promise<StoredInbound[]>;
  claimSends(node: string, now: number, limit: number): Promise<SendWork[]>;
  /** Runs due release and expire jobs (claimed and done in this transaction). */
  runMessageJobs(now: number, limit: number): Promise<MessageJobsRun>;
  claimWebhooks(request: ClaimRequest): Promise<ClaimResult>;
  secretsOf(accountIds: readonly number[]): Promise<Map<number, AccountSecrets>>;
  sweepReceiptTimeouts(now: number, timeoutMs: number, limit: number): Promise<Changed[]>;
  /** Applies orphan receipts whose part has been recorded since they arrived. */
  sweepOrphans(connector: string, now: number): Promise<Changed[]>;
  /**
   * Writes the message counters of the status changes made so far and queues their webhooks
   * (src/store/transitions.ts, settleChanges); the turn's commit does it too.
   */
  settle(): Promise<void>;
}

/** What the sending engine needs from storage. */
export interface EngineStore {
  /** Whether two turns may run at once (row locks); SQLite has one writer. */
  readonly concurrentTurns: boolean;
  /**
   * Runs `work` in one transaction; on a PostgreSQL deadlock it runs again whole. Webhooks its
   * status changes queue are held by `hold`'s node, up to its room (src/store/webhooks/enqueue.ts).
   */
  tick<T>(work: (ops: TickOps) => Promise<T>, hold?: DeliveryHold): Promise<T>;
  /** Whether a send claim would find anything, asked without a write transaction. */
  anySendDue(now: number): Promise<boolean>;
  /**
   * When the next send, message job or webhook becomes due; null when none is waiting. `now`
   * is the engine's clock: an account whose send_rate ran out until later is due then.
   */
  nextDue(now: number): Promise<{ sends: number | null; jobs: number | null; webhooks: number | null }>;
  join(
    node: Omit<NodeInfo, 'heartbeatAt'>,
    now: number,
    ttlMs: number,
    policy: InterruptedPolicy,
  ): Promise<JoinOutcome>;
  beat(id: string, now: number): Promise<boolean>;
  staleNodes(now: number, ttlMs: number): Promise<string[]>;
  /** Takes over a stale node's work in a transaction of its own; null when another node did. */
  takeOver(id: string, now: number, ttlMs: number, policy: InterruptedPolicy): Promise<TakeOver | null>;
  leave(id: string, now: number): Promise<void>;
  nodes(): Promise<NodeInfo[]>;
  pause(messageId: number): Promise<PauseOutcome>;
  resume(messageId: number, now: number): Promise<PauseOutcome>;
  cancel(messageId: number, now: number): Promise<Changed[]>;
  /** Parts accepted by `connector` still waiting for a receipt (the simulator resumes them). */
  outstandingParts(connector: string): Promise<{ carrierId: string; to: string; sentAt: number }[]>;
}

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

/** Messages whose sending data is kept: a bulk message's recipients are claimed over many turns. */
const MESSAGE_CACHE_SIZE = 10_000;

function messageCache(): MessageCache {
  const entries = boundedCache<number, MessageForSending>(MESSAGE_CACHE_SIZE);
  return {
    get: (id) => entries.get(id),
    set: (id, message) => void entries.set(id, message),
  };
}

export interface EngineSinks {
  /** Runs in every transaction that changes recipient statuses (delivery reports go here). */
  readonly transitions?: TransitionSink | undefined;
  /** Runs in every transaction that stores inbound messages with a webhook to send. */
  readonly inbound?: InboundStoredSink | undefined;
  /** Told after every commit that moved recipients (the recipients metric). */
  readonly entered?: OnEntered | undefined;
}

export function engineStore(db: Kysely<Database>, dialect: Dialect, sinks: EngineSinks = {}): EngineStore {
  const sink = sinks.transitions;
  const tx = <T>(run: (t: Kysely<Database>) => Promise<T>) =>
    withDeadlockRetry(() => countedTransaction(db, sinks.entered, run));
  const messages = messageCache();
  const meter = createSendMeter();
  const opsOf = (t: Kysely<Database>): TickOps => ({
    recordSubmits: (node, connector, results, retryDelay, now) =>
      recordSubmitsIn(t, dialect, node, connector, results, retryDelay, now, sink),
    applyReceipts: (connector, receipts, now) => applyReceiptsIn(t, dialect, connector, receipts, now, sink),
    recordWebhookAttempts: (node, results, now) => recordAttemptsIn(t, node, results, now),
    storeInbound: async (arrivals, now) => {
      const stored = await storeInboundIn(t, arrivals, now, { dialect, sink });
      // Routed messages go to the sink with or without a webhook URL: an account bound over
      // SMPP gets its MO as deliver_sm (decisions §21) whether or not it has an inbound_url.
      const routed = stored.filter((s) => s.record.accountId !== null);
      if (routed.length > 0) await sinks.inbound?.(t, routed);
      return stored;
    },
    claimSends: (node, now, limit) => claimSendsIn(t, dialect, node, now, limit, messages, sink, meter),
    runMessageJobs: (now, limit) => runMessageJobsIn(t, dialect, now, limit, sink),
    claimWebhooks: (request) => claimDeliveriesIn(t, dialect, request),
    secretsOf: (accountIds) => secretsOfIn(t, [...accountIds]),
    sweepReceiptTimeouts: (now, timeoutMs, limit) =>
      sweepReceiptTimeoutsIn(t, dialect, now, timeoutMs, limit, sink),
    sweepOrphans: (connector, now) => adoptRecordedOrphansIn(t, dialect, connector, now, sink),
    settle: () => settleChanges(t, dialect),
  });
  return {
    concurrentTurns: dialect.rowLocks,
    tick: (work, hold) => {
      const room = hold?.room ?? 0;
      return tx(async (t) => {
        if (hold) {
          // A run again after a deadlock starts from the same room.
          hold.held.length = 0;
          hold.room = room;
          setHold(t, hold);
        }
        deferChanges(t);
        const result = await work(opsOf(t));
        await settleChanges(t, dialect);
        return result;
      });
    },
    anySendDue: (now) => anySendDue(db, now),
    nextDue: async (now) => ({
      sends: await nextSendDue(db, meter.throttled(now)),
      jobs: await nextJobDue(db),
      webhooks: await nextDueDelivery(db),
    }),
    join: (node, now, ttlMs, policy) => tx((t) => joinIn(t, dialect, node, now, ttlMs, policy, sink)),
    beat: (id, now) => beat(db, id, now),
    staleNodes: (now, ttlMs) => staleNodes(db, now, ttlMs),
    takeOver: (id, now, ttlMs, policy) =>
      tx((t) => takeOverStaleIn(t, dialect, id, now, ttlMs, policy, sink)),
    leave: (id, now) => tx((t) => leaveIn(t, id, now)),
    nodes: () => listNodes(db),
    pause: (messageId) => tx((t) => pauseIn(t, messageId)),
    resume: (messageId, now) => tx((t) => resumeIn(t, messageId, now)),
    cancel: (messageId, now) => tx((t) => cancelIn(t, dialect, messageId, now, sink)),
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
