import type { Logger } from 'pino';
import { AggregatorRegistry, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { QueueDepth } from '../store/operations.js';
import { defineEngineMetrics, type EngineMetrics } from './engine-metrics.js';
import type { MetricSnapshot } from './families.js';
import { defineHttpMetrics, type HttpMetrics } from './http-metrics.js';

/** This node's metrics (decisions §12): what it counts, what it reads from the store, what other threads post. */
export interface Metrics {
  readonly http: HttpMetrics;
  /** Fed by the sending engine (which also sends the webhooks) when it runs on this thread. */
  readonly engine: EngineMetrics;
  /**
   * Adds the metrics of another thread of this node (the engine thread: see thread-metrics.ts)
   * to every scrape. Its snapshot is summed with this thread's values of the same names.
   */
  addThread(snapshot: () => Promise<readonly MetricSnapshot[]>): void;
  /** Prometheus text format, with its content type. */
  scrape(): Promise<{ readonly contentType: string; readonly text: string }>;
}

export interface MetricsOptions {
  /** The store's queue depth, read at each scrape; absent: the queue gauges are not reported. */
  readonly queueDepth?: (now: number) => Promise<QueueDepth>;
  readonly now: () => number;
  readonly logger: Logger;
}

/** A scrape waits this long for another thread's snapshot, then goes on without it. */
const THREAD_TIMEOUT_MS = 2_000;

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const http = defineHttpMetrics(registry);
  const engine = defineEngineMetrics(registry);
  const refreshQueue = options.queueDepth ? queueGauges(registry, options.queueDepth, options) : null;
  const threads: (() => Promise<readonly MetricSnapshot[]>)[] = [];

  return {
    http,
    engine,
    addThread: (snapshot) => void threads.push(snapshot),
    async scrape() {
      await refreshQueue?.();
      if (threads.length === 0) return { contentType: registry.contentType, text: await registry.metrics() };
      const others = await Promise.all(threads.map((snapshot) => withinTimeout(snapshot(), options.logger)));
      const own = (await registry.getMetricsAsJSON()) as unknown as MetricSnapshot[];
      const merged = mergeSnapshots(
        own,
        others.filter((s) => s !== null),
      );
      return { contentType: registry.contentType, text: await merged.metrics() };
    },
  };
}

/**
 * The store gauges, set from one read of the store per scrape. When the read fails their
 * series are dropped rather than left at old values (an absent series is what an alert on
 * stale data looks for); the failure is logged.
 */
function queueGauges(
  registry: Registry,
  read: (now: number) => Promise<QueueDepth>,
  { now, logger }: MetricsOptions,
): () => Promise<void> {
  const registers = [registry];
  const recipients = new Gauge({
    name: 'smsgw_queue_recipients',
    help: 'Recipients pending or submitted, whole store',
    labelNames: ['status'],
    registers,
  });
  const webhooks = new Gauge({
    name: 'smsgw_webhook_queue',
    help: 'Webhook deliveries waiting: due now, or scheduled for a later attempt',
    labelNames: ['state'],
    registers,
  });
  const lag = new Gauge({
    name: 'smsgw_webhook_lag_seconds',
    help: 'Age of the oldest due webhook delivery (0 when none is due)',
    registers,
  });
  return async () => {
    try {
      const at = now();
      const depth = await read(at);
      recipients.set({ status: 'pending' }, depth.pending);
      recipients.set({ status: 'submitted' }, depth.submitted);
      webhooks.set({ state: 'due' }, depth.webhooksDue);
      webhooks.set({ state: 'scheduled' }, depth.webhooksScheduled);
      lag.set(depth.oldestDueAt === null ? 0 : Math.max(0, at - depth.oldestDueAt) / 1000);
    } catch (error) {
      logger.warn({ err: error }, 'metrics: reading the queue depth failed');
      recipients.reset();
      webhooks.reset();
      lag.reset();
    }
  };
}

async function withinTimeout<T>(promise: Promise<T>, logger: Logger): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      logger.warn({ ms: THREAD_TIMEOUT_MS }, 'metrics: a thread did not answer; scraping without it');
      resolve(null);
    }, THREAD_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      promise.catch((error: unknown) => {
        logger.warn({ err: error }, 'metrics: a thread snapshot failed; scraping without it');
        return null;
      }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * This thread's metrics plus other threads' snapshots: metrics of the same name are summed
 * (prom-client's cluster aggregation); the rest pass through as they are, including the process
 * metrics prom-client's aggregation would drop ('omit') or average.
 */
export function mergeSnapshots(
  own: readonly MetricSnapshot[],
  others: readonly (readonly MetricSnapshot[])[],
) {
  const shared = new Set(others.flatMap((snapshot) => snapshot.map((m) => m.name)));
  const passThrough = own.map((m) => (shared.has(m.name) ? m : { ...m, aggregator: 'first' }));
  return AggregatorRegistry.aggregate([passThrough, ...others] as unknown as Parameters<
    typeof AggregatorRegistry.aggregate
  >[0]);
}
