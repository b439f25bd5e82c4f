/** The SMSC's window and rate, our own window, rate and response timeout. */
import { afterAll, describe, expect, it } from 'vitest';
import { Harness, request } from '../helpers.js';

/** Distinct numbers ending in 0 (delivered). */
const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => `+44770091${base}${String(i).padStart(2, '0')}0`);

describe('connector ↔ smsc-sim: windows, rates, timeouts', () => {
  const h = new Harness();
  afterAll(() => h.stopAll());

  it("the SMSC's window full → ESME_RTHROTTLED → retry with a delay", async () => {
    const sim = await h.sim({ window: 2, responseDelayMs: 1_500 });
    const { connector } = await h.started(sim.port);
    const outcomes = await Promise.all(numbers(5, 300).map((to) => connector.submit(request(to, 'w'))));
    expect(outcomes.filter((o) => o.kind === 'accepted')).toHaveLength(2);
    const retries = outcomes.filter((o) => o.kind === 'retry');
    expect(retries).toHaveLength(3);
    expect(retries[0]).toMatchObject({ reason: 'ESME_RTHROTTLED', afterMs: 1000 });
    expect(connector.state().rateLimit).toBeGreaterThan(0); // slowed down
  });

  it("over the SMSC's rate → ESME_RTHROTTLED → retry", async () => {
    const sim = await h.sim({ throughput: 3 });
    const { connector } = await h.started(sim.port);
    const outcomes = await Promise.all(numbers(6, 400).map((to) => connector.submit(request(to, 'r'))));
    expect(outcomes.filter((o) => o.kind === 'accepted')).toHaveLength(3);
    expect(outcomes.filter((o) => o.kind === 'retry')).toHaveLength(3);
    expect(connector.state().errors.ESME_RTHROTTLED).toBe(3);
  });

  it('our own rate keeps us under the SMSC limit', async () => {
    const sim = await h.sim({ throughput: 6 });
    const { connector } = await h.started(sim.port, { throughput: 4 });
    const started = Date.now();
    const outcomes = await Promise.all(numbers(8, 500).map((to) => connector.submit(request(to, 'p'))));
    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    // 8 paced at 4/s: the last goes 7 × 250 ms after the first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_700);
  });

  it('our window holds further submits until a slot frees (no throttling at the SMSC)', async () => {
    const sim = await h.sim({ window: 2, responseDelayMs: 200 });
    const { connector } = await h.started(sim.port, { window: 2 });
    const outcomes = await Promise.all(numbers(6, 600).map((to) => connector.submit(request(to, 'q'))));
    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    expect(sim.stats.throttled).toBe(0);
  });

  it('no response in time → retry (timeout) and the slot is freed', async () => {
    const sim = await h.sim({ responseDelayMs: 3_000 });
    const { connector } = await h.started(sim.port, { window: 1, responseTimeoutMs: 300 });
    const first = await connector.submit(request('+447700910700', 'slow'));
    expect(first).toMatchObject({ kind: 'retry' });
    expect(first.kind === 'retry' && first.reason).toMatch(/^timeout/);
    expect(connector.state().inFlight).toBe(0);
    const second = await connector.submit(request('+447700910701', 'slow'));
    expect(second).toMatchObject({ kind: 'retry' });
    expect(connector.state().errors.timeout).toBe(2);
  });
});
