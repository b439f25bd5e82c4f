import { Registry } from 'prom-client';
import { defineEngineMetrics, type EngineMetrics } from './engine-metrics.js';
import type { MetricSnapshot } from './families.js';

/**
 * The engine's metrics in a thread of its own: counted there, at no cost to the API thread, and
 * read as a snapshot (plain data, fit for postMessage) when the API thread serves /metrics.
 * The main thread's Metrics.addThread takes a function returning that snapshot.
 */
export interface ThreadMetrics {
  readonly engine: EngineMetrics;
  /** Every value counted so far in this thread (cumulative, so a lost snapshot loses nothing). */
  snapshot(): Promise<MetricSnapshot[]>;
}

export function createThreadMetrics(): ThreadMetrics {
  const registry = new Registry();
  const engine = defineEngineMetrics(registry);
  return {
    engine,
    snapshot: async () => (await registry.getMetricsAsJSON()) as unknown as MetricSnapshot[],
  };
}
