import { useEffect, useRef, useState } from 'preact/hooks';
import { request } from '../api.js';
import { Chart } from '../chart.js';
import { formatNumber } from '../format.js';
import { appendPoint, ratesBetween } from '../rates.js';
import type { Stats } from '../types.js';
import { LiveNote, Notice, StatusBadge, TableRegion, errorText, useInterval, useTitle } from '../ui.js';

const POLL_MS = 2000;
/** Five minutes of points. */
const WINDOW = 150;

interface Point {
  readonly t: number;
  readonly rates: Record<string, number | null>;
  readonly stats: Stats;
}

/** The live dashboard: rates from successive reads of the counters, gauges, and each connector. */
export function Dashboard({ secret }: { secret: string }) {
  useTitle('Dashboard');
  const [points, setPoints] = useState<Point[]>([]);
  const [last, setLast] = useState<Stats | null>(null);
  const [error, setError] = useState<string | null>(null);

  const previous = useRef<Stats | null>(null);

  const poll = async () => {
    try {
      const stats = await request<Stats>(secret, 'GET', '/admin/v1/stats');
      setError(null);
      const before = previous.current;
      const at = Date.parse(stats.at);
      // A rate needs two reads; the server answers reads within a second from one.
      if (before && at > Date.parse(before.at)) {
        const rates = ratesBetween(
          { at: Date.parse(before.at), counters: before.counters },
          { at, counters: stats.counters },
        );
        setPoints((p) => appendPoint(p, { t: at / 1000, rates, stats }, WINDOW));
      }
      previous.current = stats;
      setLast(stats);
    } catch (e) {
      setError(errorText(e));
    }
  };
  useInterval(() => void poll(), POLL_MS);
  // The first read at once, not after the first interval.
  useEffect(() => void poll(), []);

  const times = points.map((p) => p.t);
  const rate = (name: string) => points.map((p) => p.rates[name] ?? null);
  const gauge = (name: keyof Stats['gauges']) => points.map((p) => p.stats.gauges[name]);
  const connectorNames = last?.connectors.map((c) => c.name) ?? [];
  const palette = ['#1d4ed8', '#b45309', '#047857', '#7c3aed', '#be123c', '#0e7490'];

  return (
    <section aria-labelledby="dashboard-title">
      <h1 id="dashboard-title">Dashboard</h1>
      <LiveNote at={last ? Date.parse(last.at) : null} />
      {error && <Notice kind="error">{error}</Notice>}
      {last && (
        <div class="tiles">
          <Tile label="Pending" value={last.gauges.pending} />
          <Tile label="Queued for the carrier" value={last.gauges.submitted} />
          <Tile label="Awaiting receipt" value={last.gauges.awaiting_receipt} />
          <Tile label="Webhooks due" value={last.gauges.webhooks_due} />
          <Tile label="Webhook lag (s)" value={last.gauges.webhook_lag_seconds} />
        </div>
      )}
      <div class="charts">
        <Chart
          title="Recipients per second"
          unit="/s"
          series={[
            { label: 'Accepted', color: '#1d4ed8' },
            { label: 'Sent', color: '#7c3aed' },
            { label: 'Delivered', color: '#047857' },
            { label: 'Failed', color: '#be123c' },
          ]}
          data={[times, rate('accepted'), rate('sent'), rate('delivered'), rate('failed')]}
        />
        <Chart
          title="Queue depth"
          unit="recipients"
          series={[
            { label: 'Pending', color: '#b45309' },
            { label: 'Queued', color: '#1d4ed8' },
            { label: 'Awaiting receipt', color: '#7c3aed' },
          ]}
          data={[times, gauge('pending'), gauge('submitted'), gauge('awaiting_receipt')]}
        />
        <Chart
          title="Webhook lag"
          unit="s"
          series={[{ label: 'Oldest due delivery', color: '#be123c' }]}
          data={[times, gauge('webhook_lag_seconds')]}
        />
        {connectorNames.length > 0 && (
          <Chart
            key={connectorNames.join(',')}
            title="Connector throughput"
            unit="submit_sm/s"
            series={connectorNames.map((name, i) => ({ label: name, color: palette[i % palette.length]! }))}
            data={[
              times,
              ...connectorNames.map((name) =>
                points.map((p) => p.stats.connectors.find((c) => c.name === name)?.throughput ?? null),
              ),
            ]}
          />
        )}
      </div>
      <h2>Connectors on this node</h2>
      {last && last.connectors.length === 0 ? (
        <p class="empty">
          No SMPP connector runs on this node (the simulated carrier is in use, or none is configured).
        </p>
      ) : (
        <TableRegion label="Connectors">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Connector</th>
                <th scope="col">State</th>
                <th scope="col">In flight</th>
                <th scope="col">Throughput</th>
                <th scope="col">Submits</th>
                <th scope="col">Errors</th>
              </tr>
            </thead>
            <tbody>
              {last?.connectors.map((c) => (
                <tr key={c.name}>
                  <td>{c.name}</td>
                  <td>
                    <StatusBadge status={c.bound ? 'bound' : 'unbound'} />
                  </td>
                  <td>{formatNumber(c.in_flight)}</td>
                  <td>{formatNumber(c.throughput)}/s</td>
                  <td>{formatNumber(c.submits)}</td>
                  <td>{formatNumber(c.errors)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </section>
  );
}

function Tile({ label, value }: { label: string; value: number }) {
  return (
    <div class="tile">
      <span class="tile-label">{label}</span>
      <span class="tile-value">{formatNumber(value)}</span>
    </div>
  );
}
