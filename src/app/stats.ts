/**
 * What the operator's live dashboard reads (GET /admin/v1/stats): cumulative counters, whose
 * differences between two reads give rates, and gauges of the queues right now.
 *
 * This implementation reads the database, so it sees every node's work. The counters start
 * from zero when this process first reads them (as a Prometheus counter does at a restart):
 * only differences mean anything. `delivered` and `failed` count a message's recipients when
 * the message completes, since recipients carry no index on the time they became final and
 * adding one would cost every status change on the sending path.
 */
import { FINAL_STATUSES, type Status } from '../domain/status.js';
import type { Store } from '../store/port.js';

export interface StatsCounters {
  /** Recipients accepted. */
  readonly accepted: number;
  /** Recipients the carrier accepted. */
  readonly sent: number;
  readonly delivered: number;
  /** Recipients that reached a final status other than delivered or cancelled. */
  readonly failed: number;
  /** Webhook attempts made (accepted or not). */
  readonly webhook_attempts: number;
}

export interface StatsGauges {
  /** Recipients waiting to be due: scheduled, paused or outside their window. */
  readonly pending: number;
  /** Recipients queued for the carrier. */
  readonly submitted: number;
  /** Recipients the carrier accepted, waiting for their receipt. */
  readonly awaiting_receipt: number;
  /** Webhook deliveries due now. */
  readonly webhooks_due: number;
  /** How long the oldest due webhook delivery has waited; 0 when none is due. */
  readonly webhook_lag_seconds: number;
}

export interface ConnectorStats {
  readonly name: string;
  readonly bound: boolean;
  readonly in_flight: number;
  /** submit_sm per second, recently. */
  readonly throughput: number;
  /** Counters of the link: submits made, errors seen. */
  readonly submits: number;
  readonly errors: number;
}

export interface Stats {
  /** Epoch milliseconds the figures were read at. */
  readonly at: number;
  readonly counters: StatsCounters;
  readonly gauges: StatsGauges;
  readonly connectors: readonly ConnectorStats[];
}

export interface StoreStatsOptions {
  readonly store: Pick<Store, 'stats'>;
  readonly now: () => number;
  /** Live state of each running connector, by name (see SmppConnectorState). */
  readonly connectorStates?: () => Promise<Record<string, unknown>>;
  /** Reads younger than this are answered from the last one; many open dashboards cost one. */
  readonly cacheMs?: number;
}

/** Submit attempts read per poll at most; a larger burst is caught up over the next polls. */
const ATTEMPT_PAGE = 50_000;
/**
 * A message's completion is counted once its transaction has surely committed: complete_at
 * is the time the transaction began, so one still open is counted on a later read.
 */
const COMMIT_GRACE_MS = 2_000;

/** Figures read from the database, cached for `cacheMs` (default 1 s). */
export function createStoreStats(options: StoreStatsOptions): () => Promise<Stats> {
  const { store, now } = options;
  const cacheMs = options.cacheMs ?? 1_000;
  let started: Promise<CounterState> | null = null;
  let last: { at: number; stats: Promise<Stats> } | null = null;

  const read = async (): Promise<Stats> => {
    started ??= startCounting(store, now());
    const state = await started;
    const at = now();
    await advance(store, state, at);
    const [depth, webhooks, connectors] = await Promise.all([
      store.stats.queueDepth(),
      store.stats.webhooksDue(at),
      options.connectorStates ? options.connectorStates() : Promise.resolve({}),
    ]);
    return {
      at,
      counters: {
        accepted: (await store.stats.acceptedMark()) - state.acceptedBase,
        sent: state.sent,
        delivered: state.delivered,
        failed: state.failed,
        webhook_attempts: (await store.stats.webhookAttemptMark()) - state.webhookAttemptBase,
      },
      gauges: {
        pending: Math.max(0, depth.open - depth.submitted - depth.awaitingReceipt),
        submitted: depth.submitted,
        awaiting_receipt: depth.awaitingReceipt,
        webhooks_due: webhooks.due,
        webhook_lag_seconds:
          webhooks.oldestDueAt === null ? 0 : Math.max(0, at - webhooks.oldestDueAt) / 1000,
      },
      connectors: connectorStats(connectors),
    };
  };

  return () => {
    const at = now();
    if (!last || at - last.at >= cacheMs) {
      const stats = read();
      last = { at, stats };
      // A failed read is not kept: the next caller tries again.
      stats.catch(() => {
        if (last?.stats === stats) last = null;
      });
    }
    return last.stats;
  };
}

interface CounterState {
  readonly acceptedBase: number;
  readonly webhookAttemptBase: number;
  /** Submit attempts up to this id have been read. */
  attemptsThrough: number;
  /** Attempts read while still in flight, read again until they have an outcome. */
  openAttempts: number[];
  /** Messages completed up to this time have been counted. */
  completedThrough: number;
  sent: number;
  delivered: number;
  failed: number;
}

async function startCounting(store: Pick<Store, 'stats'>, at: number): Promise<CounterState> {
  return {
    acceptedBase: await store.stats.acceptedMark(),
    webhookAttemptBase: await store.stats.webhookAttemptMark(),
    attemptsThrough: await store.stats.submitAttemptMark(),
    openAttempts: [],
    completedThrough: at - COMMIT_GRACE_MS,
    sent: 0,
    delivered: 0,
    failed: 0,
  };
}

async function advance(store: Pick<Store, 'stats'>, state: CounterState, at: number): Promise<void> {
  const rows = await store.stats.submitOutcomes(state.attemptsThrough, state.openAttempts, ATTEMPT_PAGE);
  const open: number[] = [];
  for (const row of rows) {
    if (row.outcome === null) open.push(row.id);
    else if (row.outcome === 'accepted') state.sent += 1;
    if (row.id > state.attemptsThrough) state.attemptsThrough = row.id;
  }
  state.openAttempts = open;

  const through = at - COMMIT_GRACE_MS;
  if (through > state.completedThrough) {
    const statuses = await store.stats.completedStatuses(state.completedThrough, through);
    for (const [status, n] of statuses) {
      if (status === 'delivered') state.delivered += n;
      else if (status !== 'cancelled' && FINAL_STATUSES.has(status as Status)) state.failed += n;
    }
    state.completedThrough = through;
  }
}

/** The few figures of a connector's live state (src/carriers/smpp/connector) the dashboard charts. */
function connectorStats(states: Record<string, unknown>): ConnectorStats[] {
  return Object.entries(states).map(([name, raw]) => {
    const s = (raw ?? {}) as {
      bound?: unknown;
      inFlight?: unknown;
      throughput?: unknown;
      totals?: Record<string, unknown>;
      errors?: Record<string, unknown>;
    };
    const sum = (values: Record<string, unknown> | undefined) =>
      Object.values(values ?? {}).reduce<number>((n, v) => n + (typeof v === 'number' ? v : 0), 0);
    return {
      name,
      bound: s.bound === true,
      in_flight: typeof s.inFlight === 'number' ? s.inFlight : 0,
      throughput: typeof s.throughput === 'number' ? s.throughput : 0,
      submits: typeof s.totals?.submits === 'number' ? s.totals.submits : 0,
      errors: sum(s.errors),
    };
  });
}
