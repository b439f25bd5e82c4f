import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/metrics.js';

interface Panel {
  readonly title: string;
  readonly targets?: readonly { readonly expr: string }[];
}

/** docs/grafana-dashboard.json is built on the metric names /metrics serves, and only on those. */
describe('the Grafana dashboard', () => {
  it('queries only metrics that /metrics serves', async () => {
    const dashboard = JSON.parse(
      readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8'),
    ) as {
      panels: Panel[];
    };
    const metrics = createMetrics({
      now: () => 0,
      logger: pino({ level: 'silent' }),
      queueDepth: async () => ({
        pending: 0,
        submitted: 0,
        webhooksDue: 0,
        webhooksScheduled: 0,
        oldestDueAt: null,
      }),
    });
    // A request and a submit, so that the histogram series exist too.
    metrics.http.observe('GET', '/healthz', 200, 0.001);
    metrics.engine.submitObserved('smpp-a', 0.01);
    metrics.engine.connectorBinds('smpp-a', 1);
    metrics.engine.connectorInFlight('smpp-a', 0);
    metrics.engine.receiptsReceived('smpp-a', true);
    const { text } = await metrics.scrape();
    const served = new Set(
      text
        .split('\n')
        .filter((l) => !l.startsWith('#') && l !== '')
        .map((l) => /^[^{ ]+/.exec(l)![0]),
    );

    const queried = dashboard.panels.flatMap((p) =>
      (p.targets ?? []).flatMap((t) => t.expr.match(/\b(smsgw|process|nodejs)_[a-z0-9_]+/g) ?? []),
    );
    expect(queried.length).toBeGreaterThan(20);
    expect([...new Set(queried)].filter((name) => !served.has(name))).toEqual([]);
    // Every smsgw metric of decisions §12 is on the dashboard.
    const ours = [...served]
      .filter((n) => n.startsWith('smsgw_'))
      .map((n) => n.replace(/_(bucket|sum|count)$/, ''));
    expect([...new Set(ours)].filter((name) => !queried.some((q) => q.startsWith(name)))).toEqual([]);
  });
});
