import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../src/carriers/port.js';
import { createCarrierEventStage } from '../../src/engine/carrier-events.js';
import { defineEngineMetrics } from '../../src/metrics/engine-metrics.js';
import { ENGINES } from '../helpers/engines.js';
import { createEngineHarness, ScriptedConnector, type EngineHarness } from '../helpers/engine.js';

const receipt = (carrierId: string) => ({ carrierId, state: 'delivered' as const, at: 0 });

describe('receipts whose submit is not recorded yet', () => {
  it('wait for it, in order, while every other receipt goes at once', async () => {
    const unrecorded = new Set(['c1']);
    const stage = createCarrierEventStage({
      connector: 'sim',
      onEvent: () => {},
      unrecorded: (id) => unrecorded.has(id),
    });
    void stage.events.receipt({ ...receipt('c1'), state: 'enroute' });
    void stage.events.receipt(receipt('c2'));
    void stage.events.receipt(receipt('c1'));
    const first = stage.takeOutcomes(10);
    expect(first.map((e) => e.kind === 'receipt' && e.receipt.carrierId)).toEqual(['c2']);
    expect(stage.waiting).toBe(2);

    unrecorded.delete('c1');
    const second = stage.takeOutcomes(10);
    expect(second.map((e) => e.kind === 'receipt' && [e.receipt.carrierId, e.receipt.state])).toEqual([
      ['c1', 'enroute'],
      ['c1', 'delivered'],
    ]);
    expect(stage.waiting).toBe(0);
  });
});

describe.each(ENGINES)('a receipt right behind its submit answer on %s', (engineName) => {
  let h: EngineHarness | null = null;
  afterEach(async () => {
    await h?.stop();
    h = null;
  });

  it('finds its recipient: none waits for the orphan sweep', async () => {
    const registry = new Registry();
    const c = new ScriptedConnector();
    const original = c.submit.bind(c);
    // The SMSC's receipt follows its submit_sm_resp at once: it arrives while the answer is
    // still waiting for its turn to be recorded.
    c.submit = async (request): Promise<SubmitOutcome> => {
      const outcome = await original(request);
      if (outcome.kind === 'accepted') {
        setImmediate(() => void c.events!.receipt(receipt(outcome.carrierIds[0]!)));
      }
      return outcome;
    };
    h = await createEngineHarness(engineName, {
      connector: () => c,
      metrics: defineEngineMetrics(registry),
    });
    const t = h;
    const to = Array.from({ length: 300 }, (_, i) => `+6149157${String(i).padStart(4, '0')}`);
    const ids = [await t.send({ to: to.slice(0, 150) }), await t.send({ to: to.slice(150) })];
    for (const id of ids) {
      await t.until(
        () => t.status(id),
        (s) => s.status.delivered === 150,
      );
    }
    // Counted once the turn that recorded them has committed, which the API may see first.
    const counted = async () => {
      const values = (await registry.getSingleMetric('smsgw_receipts_total')!.get()).values;
      const of = (m: string) => values.find((v) => v.labels.matched === m)?.value ?? 0;
      return { matched: of('true'), unmatched: of('false') };
    };
    const receipts = await t.until(counted, (c) => c.matched + c.unmatched === 300);
    expect(receipts).toEqual({ matched: 300, unmatched: 0 });
  });
});
