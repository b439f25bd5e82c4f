/**
 * Receipts that quote the id in another form than the submit_sm_resp, receipts that overtake
 * their response, and receipts the engine could not record.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { IdFormat } from '../../../../src/carriers/smpp/smsc/index.js';
import { Harness, request, waitFor } from '../helpers.js';

describe('connector ↔ smsc-sim: receipt ids', () => {
  const h = new Harness();
  afterAll(() => h.stopAll());

  const forms: [IdFormat, IdFormat][] = [
    ['hex', 'decimal'],
    ['decimal', 'hex'],
    ['decimal', 'decimal'],
  ];

  it.each(forms)(
    'submit_sm_resp in %s, receipt in %s → reported under the submitted id',
    async (idFormat, receiptIdFormat) => {
      const sim = await h.sim({ idFormat, receiptIdFormat, receiptDelayMs: 20 });
      const { connector, events } = await h.started(sim.port);
      const outcome = await connector.submit(request('+447700900150', 'Which id?'));
      const [id] = outcome.kind === 'accepted' ? outcome.carrierIds : [];
      expect(id).toBe(sim.stats.submits[0]?.messageId);
      const receipt = await waitFor(() => events.receipts[0], 'the receipt');
      expect(receipt).toMatchObject({ carrierId: id, state: 'delivered' });
    },
  );

  it.each(forms)(
    'a receipt before its submit_sm_resp (%s / %s) is kept and reported under the submitted id',
    async (idFormat, receiptIdFormat) => {
      const sim = await h.sim({
        idFormat,
        receiptIdFormat,
        receiptBeforeResponse: true,
        responseDelayMs: 300,
      });
      const { connector, events } = await h.started(sim.port);
      const outcome = await connector.submit(request('+447700900151', 'Overtaken'));
      const [id] = outcome.kind === 'accepted' ? outcome.carrierIds : [];
      const receipt = await waitFor(() => events.receipts[0], 'the receipt');
      expect(receipt).toMatchObject({ carrierId: id, state: 'delivered' });
      expect(sim.stats.deliveredOk).toBe(1);
    },
  );

  it('a failed receipt, error detail included', async () => {
    const sim = await h.sim({ receiptDelayMs: 20 });
    const { connector, events } = await h.started(sim.port);
    await connector.submit(request('+447700900155', 'Will fail'));
    const receipt = await waitFor(() => events.receipts[0], 'the receipt');
    expect(receipt).toMatchObject({ state: 'failed', error: 'err:001' });
  });

  it('a receipt the engine could not record is refused, redelivered and then recorded', async () => {
    const sim = await h.sim({ receiptDelayMs: 20, redeliveryDelayMs: 100 });
    const { connector, events } = await h.started(sim.port);
    events.failNextReceipts(1);
    const outcome = await connector.submit(request('+447700900152', 'Try again'));
    const [id] = outcome.kind === 'accepted' ? outcome.carrierIds : [];
    await waitFor(() => events.receipts[0], 'the redelivered receipt');
    expect(events.receipts).toEqual([expect.objectContaining({ carrierId: id, state: 'delivered' })]);
    // The ack reaches the simulator just after the receipt is recorded on our side.
    await waitFor(() => (sim.stats.deliveredOk >= 1 ? true : undefined), 'the acknowledgement');
    expect(sim.stats.deliveredNacked).toBe(1);
    expect(sim.stats.deliveredOk).toBe(1);
  });
});
