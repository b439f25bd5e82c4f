/** Our connector against our simulator: every decisions §8 outcome, end to end over a socket. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmppConnector } from '../../../../src/carriers/smpp/connector/index.js';
import type { SmscSimulator } from '../../../../src/carriers/smpp/smsc/index.js';
import { Harness, request, waitFor, type Recorder } from '../helpers.js';

describe('connector ↔ smsc-sim: outcomes by last digit', () => {
  const h = new Harness();
  let sim: SmscSimulator;
  let connector: SmppConnector;
  let events: Recorder;

  beforeAll(async () => {
    sim = await h.sim({ receiptDelayMs: 50 });
    ({ connector, events } = await h.started(sim.port));
  });
  afterAll(() => h.stopAll());

  const cases = [
    ['+447700900120', 'delivered'],
    ['+447700900124', 'delivered'],
    ['+447700900125', 'failed'],
    ['+447700900127', 'expired'],
    ['+447700900128', 'deleted'],
    ['+447700900129', 'unknown'],
  ] as const;

  it.each(cases)('%s → accepted, then a %s receipt under the submitted id', async (to, state) => {
    const outcome = await connector.submit(request(to, 'Hello'));
    expect(outcome.kind).toBe('accepted');
    const [id] = outcome.kind === 'accepted' ? outcome.carrierIds : [];
    const receipt = await waitFor(() => events.receipts.find((r) => r.carrierId === id), `receipt for ${id}`);
    expect(receipt.state).toBe(state);
    expect(sim.stats.submitCount(to)).toBe(1);
  });

  it('last digit 6 → rejected with ESME_RSUBMITFAIL, no receipt', async () => {
    const outcome = await connector.submit(request('+447700900126', 'Hello'));
    expect(outcome).toMatchObject({ kind: 'rejected', code: 0x45 });
    expect(outcome.kind === 'rejected' && outcome.reason).toContain('ESME_RSUBMITFAIL');
  });

  it('no receipt when none is requested', async () => {
    const outcome = await connector.submit(request('+447700900130', 'Quiet', { requestReceipt: false }));
    expect(outcome.kind).toBe('accepted');
    expect(sim.stats.submits.at(-1)?.registeredDelivery).toBe(0);
  });

  it('reports its state', () => {
    const state = connector.state();
    expect(state).toMatchObject({ bound: true, session: 'bound', inFlight: 0 });
    expect(state.errors.ESME_RSUBMITFAIL).toBe(1);
  });
});
