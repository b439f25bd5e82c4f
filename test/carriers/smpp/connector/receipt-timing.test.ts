/**
 * A receipt read in the same chunk as its submit_sm_resp is matched at once: it must not
 * wait for other submits still in flight (it once waited for all of them, which cost the
 * smpp bench most of its time).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSmppConnector } from '../../../../src/carriers/smpp/connector/index.js';
import { encodePdu, makePdu } from '../../../../src/carriers/smpp/pdu/index.js';
import { OUTCOME_BY_LAST_DIGIT } from '../../../../src/carriers/smpp/smsc/index.js';
import { receiptPdu } from '../../../../src/carriers/smpp/smsc/receipt.js';
import { recorder, request, testLogger, waitFor } from '../helpers.js';
import { scriptedSmsc, type ScriptedSmsc } from '../session/scripted-smsc.js';

describe('connector: receipt right behind its response', () => {
  let smsc: ScriptedSmsc;
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('is reported while a later submit is still unanswered', async () => {
    const delivered = OUTCOME_BY_LAST_DIGIT['0']!;
    if (delivered.kind !== 'accept') throw new Error('digit 0 is delivered');
    let held: (() => void) | null = null;
    smsc = await scriptedSmsc({
      onPdu: (pdu, conn) => {
        if (pdu.command !== 'submit_sm') return;
        const answer = () => {
          const messageId = `id${pdu.sequenceNumber}`;
          const response = makePdu('submit_sm_resp', { sequenceNumber: pdu.sequenceNumber, messageId });
          const receipt = receiptPdu({
            messageId,
            outcome: delivered,
            submittedAt: new Date(),
            doneAt: new Date(),
            source: { ton: pdu.sourceAddrTon, npi: pdu.sourceAddrNpi, addr: pdu.sourceAddr },
            destination: { ton: pdu.destAddrTon, npi: pdu.destAddrNpi, addr: pdu.destinationAddr },
          });
          // One write, so the ESME reads the response and the receipt in the same chunk.
          conn.write(Buffer.concat([encodePdu(response), encodePdu({ ...receipt, sequenceNumber: 900 })]));
        };
        if (pdu.destinationAddr.endsWith('1')) answer();
        else held = answer;
      },
    });
    stops.push(() => smsc.close());
    const connector = createSmppConnector({
      name: 'test-smpp',
      host: '127.0.0.1',
      port: smsc.port,
      systemId: 'smsgw',
      password: 'secret',
      logger: testLogger,
      responseTimeoutMs: 5_000,
    });
    stops.push(() => connector.stop());
    const events = recorder();
    await connector.start(events);

    const slow = connector.submit(request('+447700900200', 'Held back'));
    await waitFor(() => held, 'the held submit');
    const fast = await connector.submit(request('+447700900201', 'Answered'));
    expect(fast).toEqual({ kind: 'accepted', carrierIds: [expect.stringMatching(/^id\d+$/)] });
    const receipt = await waitFor(() => events.receipts[0], 'the receipt', 1_000);
    expect(receipt.carrierId).toBe(fast.kind === 'accepted' ? fast.carrierIds[0] : null);
    expect(held).not.toBeNull();

    held!();
    expect(await slow).toMatchObject({ kind: 'accepted' });
  });
});
