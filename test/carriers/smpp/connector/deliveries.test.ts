/** Receipts as the engine gets them: the id as submitted, the state, and the carrier's error detail. */
import { describe, expect, it } from 'vitest';
import type { CarrierReceipt } from '../../../../src/carriers/port.js';
import { Counters } from '../../../../src/carriers/smpp/connector/counters.js';
import { createDeliveryHandler } from '../../../../src/carriers/smpp/connector/deliveries.js';
import { RecentIds } from '../../../../src/carriers/smpp/connector/recent-ids.js';
import { EsmClass, makePdu, tlv } from '../../../../src/carriers/smpp/pdu/index.js';
import { testLogger } from '../helpers.js';

function handler() {
  const receipts: CarrierReceipt[] = [];
  const recentIds = new RecentIds(10);
  recentIds.add('00AB12');
  const deliveries = createDeliveryHandler({
    events: () => ({ receipt: async (r) => void receipts.push(r), inbound: async () => {} }),
    recentIds,
    submitsSettled: async () => {},
    counters: new Counters(),
    logger: testLogger,
    reassemblyTimeoutMs: 1_000,
    maxOpenMessages: 10,
  });
  return { deliveries, receipts };
}

const receipt = (text: string, tlvs = [tlv('receipted_message_id', 'ab12')]) =>
  makePdu('deliver_sm', {
    sequenceNumber: 1,
    esmClass: EsmClass.DeliveryReceipt,
    shortMessage: Buffer.from(text, 'latin1'),
    tlvs,
  });

describe('delivery handler: receipts', () => {
  it('reports the id as submitted and no error for err:000', async () => {
    const { deliveries, receipts } = handler();
    await deliveries.handle(receipt('id:ab12 stat:DELIVRD err:000'));
    expect(receipts).toEqual([{ carrierId: '00AB12', state: 'delivered', at: expect.any(Number) }]);
  });

  it('joins the err: field and a network_error_code into the error detail', async () => {
    const { deliveries, receipts } = handler();
    await deliveries.handle(
      receipt('id:ab12 stat:UNDELIV err:027', [
        tlv('receipted_message_id', 'ab12'),
        tlv('network_error_code', { networkType: 3, errorCode: 1 }),
      ]),
    );
    await deliveries.handle(
      receipt('id:ab12 stat:UNDELIV err:000', [
        tlv('receipted_message_id', 'ab12'),
        tlv('network_error_code', { networkType: 1, errorCode: 27 }),
      ]),
    );
    expect(receipts.map((r) => r.error)).toEqual(['err:027 network 3:1', 'network 1:27']);
    expect(receipts[0]).toMatchObject({ carrierId: '00AB12', state: 'failed' });
  });
});
