import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/metrics.js';

interface Panel {
  readonly title: string;
  readonly targets?: readonly { readonly expr: string; readonly legendFormat?: string }[];
}

const METRIC = /\b(?:smsgw|process|nodejs)_[a-z0-9_]+/g;
/** Labels Prometheus adds to every scraped series. */
const TARGET_LABELS = ['instance', 'job'];

function dashboardPanels(): Panel[] {
  const file = new URL('../../docs/grafana-dashboard.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { panels: Panel[] }).panels;
}

/** Each series name /metrics serves, with its label names and the values each label takes. */
async function servedSeries(): Promise<Map<string, Map<string, Set<string>>>> {
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
  const served = new Map<string, Map<string, Set<string>>>();
  for (const line of text.split('\n').filter((l) => !l.startsWith('#') && l !== '')) {
    const name = /^[^{ ]+/.exec(line)![0];
    const labels = served.get(name) ?? new Map<string, Set<string>>();
    for (const [, label, value] of line.matchAll(/(\w+)="([^"]*)"/g)) {
      labels.set(label!, (labels.get(label!) ?? new Set()).add(value!));
    }
    served.set(name, labels);
  }
  return served;
}

/** docs/grafana-dashboard.json is built on the metric names /metrics serves, and only on those. */
describe('the Grafana dashboard', () => {
  it('queries only metrics that /metrics serves', async () => {
    const served = new Set((await servedSeries()).keys());
    const queried = dashboardPanels().flatMap((p) =>
      (p.targets ?? []).flatMap((t) => t.expr.match(METRIC) ?? []),
    );
    expect(queried.length).toBeGreaterThan(20);
    expect([...new Set(queried)].filter((name) => !served.has(name))).toEqual([]);
    // Every smsgw metric of decisions §12 is on the dashboard.
    const ours = [...served]
      .filter((n) => n.startsWith('smsgw_'))
      .map((n) => n.replace(/_(bucket|sum|count)$/, ''));
    expect([...new Set(ours)].filter((name) => !queried.some((q) => q.startsWith(name)))).toEqual([]);
  });

  // A right metric name with a wrong label name or value is a panel that stays empty, and a
  // legend naming a label the query drops shows blank: each only found by looking at live data.
  it('filters, groups and names series only by labels those metrics carry', async () => {
    const served = await servedSeries();
    const mistakes: string[] = [];
    for (const panel of dashboardPanels()) {
      for (const { expr, legendFormat = '' } of panel.targets ?? []) {
        const names = expr.match(METRIC) ?? [];
        const carried = new Set([...TARGET_LABELS, ...names.flatMap((n) => [...served.get(n)!.keys()])]);
        for (const selector of expr.matchAll(/\b((?:smsgw|process|nodejs)_[a-z0-9_]+)\{([^}]*)\}/g)) {
          const labels = served.get(selector[1]!)!;
          if (!selector[2]!.includes('instance=~"$instance"')) {
            mistakes.push(`${panel.title}: ${selector[1]} ignores the Node variable`);
          }
          for (const [, label, op, value] of selector[2]!.matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)) {
            if (TARGET_LABELS.includes(label!)) continue;
            if (!labels.has(label!)) mistakes.push(`${panel.title}: ${selector[1]} has no label ${label}`);
            else if (op === '=' && !labels.get(label!)!.has(value!)) {
              mistakes.push(`${panel.title}: ${selector[1]} never has ${label}="${value}"`);
            }
          }
        }
        const grouped = [...expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((m) => m[1]!.split(/\s*,\s*/));
        for (const label of grouped.filter((l) => !carried.has(l))) {
          mistakes.push(`${panel.title}: no metric of "${expr}" has label ${label}`);
        }
        // Aggregated, a series keeps only its `by` labels; otherwise all of its metric's.
        const kept = /\b(sum|max|min|avg|count)\s*(\(|by)/.test(expr) ? new Set(grouped) : carried;
        for (const [, label] of legendFormat.matchAll(/\{\{\s*(\w+)\s*\}\}/g)) {
          if (!kept.has(label!))
            mistakes.push(`${panel.title}: legend {{${label}}} is not a label of its series`);
        }
      }
    }
    expect(mistakes).toEqual([]);
  });
});
