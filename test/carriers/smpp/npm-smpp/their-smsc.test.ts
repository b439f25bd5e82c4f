/**
 * Our connector against an independent SMSC: the npm `smpp` package's server. It answers
 * the bind and submits, sends a receipt and an MO, and checks what our PDUs say.
 */
import smpp, { type SmppPdu, type SmppServer, type SmppSession } from 'smpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmppConnector } from '../../../../src/carriers/smpp/connector/index.js';
import { Harness, request, waitFor, type Recorder } from '../helpers.js';

describe('our connector ↔ npm smpp server', () => {
  const h = new Harness();
  const submits: SmppPdu[] = [];
  const binds: SmppPdu[] = [];
  const sessions: SmppSession[] = [];
  let server: SmppServer;
  let connector: SmppConnector;
  let events: Recorder;
  let nextId = 1000;

  beforeAll(async () => {
    server = smpp.createServer((session) => {
      sessions.push(session);
      session.on('error', () => {});
      session.on('bind_transceiver', (pdu) => {
        binds.push(pdu);
        session.send(pdu.response({ system_id: 'npm-smpp' }));
      });
      session.on('enquire_link', (pdu) => session.send(pdu.response()));
      session.on('unbind', (pdu) => {
        session.send(pdu.response());
        session.close();
      });
      session.on('submit_sm', (pdu) => {
        submits.push(pdu);
        const to = String(pdu.destination_addr);
        if (to.endsWith('6'))
          return session.send(pdu.response({ command_status: smpp.errors.ESME_RINVDSTADR }));
        const id = (nextId++).toString(16);
        session.send(pdu.response({ message_id: id }));
        if (pdu.registered_delivery) {
          const text = `id:${id} sub:001 dlvrd:001 submit date:2401011200 done date:2401011201 stat:DELIVRD err:000`;
          session.deliver_sm(
            {
              source_addr: to,
              destination_addr: pdu.source_addr,
              esm_class: 0x04,
              data_coding: 0,
              short_message: Buffer.from(text),
              receipted_message_id: id,
              message_state: 2,
            },
            () => {},
          );
        }
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    h.add(
      () =>
        new Promise<void>((ok) => {
          for (const s of sessions) s.destroy();
          server.close(() => ok());
        }),
    );
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    ({ connector, events } = await h.started(port));
  });
  afterAll(() => h.stopAll());

  it('binds as a transceiver with SMPP 3.4', () => {
    expect(connector.state().bound).toBe(true);
    expect(binds[0]).toMatchObject({ system_id: 'smsgw', password: 'secret', interface_version: 0x34 });
  });

  it('submits; the receipt comes back under the submitted id', async () => {
    const outcome = await connector.submit(request('+447700900301', 'Hello npm smpp'));
    expect(outcome.kind).toBe('accepted');
    const [id] = outcome.kind === 'accepted' ? outcome.carrierIds : [];
    expect(submits.at(-1)).toMatchObject({
      destination_addr: '447700900301',
      dest_addr_ton: 1,
      source_addr: '447700900001',
      registered_delivery: 1,
      data_coding: 0,
    });
    expect((submits.at(-1)?.short_message as { message: string }).message).toBe('Hello npm smpp');
    const receipt = await waitFor(() => events.receipts.find((r) => r.carrierId === id), 'the receipt');
    expect(receipt.state).toBe('delivered');
  });

  it('UCS-2 text reads the same on their side', async () => {
    await connector.submit(request('+447700900302', 'Привет, мир'));
    expect(submits.at(-1)).toMatchObject({ data_coding: 8 });
    expect((submits.at(-1)?.short_message as { message: string }).message).toBe('Привет, мир');
  });

  it('a long message goes as parts with a concatenation UDH', async () => {
    const text = 'Part of a long message. '.repeat(10);
    const outcome = await connector.submit(request('+447700900303', text));
    expect(outcome.kind === 'accepted' && outcome.carrierIds.length).toBe(2);
    const parts = submits.slice(-2).map((p) => p.short_message as { udh: Buffer[]; message: string });
    expect(parts.map((p) => p.udh[0]?.[0])).toEqual([0x00, 0x00]); // IEI 0: 8-bit reference
    expect(parts.map((p) => p.message).join('')).toBe(text);
  });

  it('their refusal is our rejection', async () => {
    expect(await connector.submit(request('+447700900306', 'no'))).toMatchObject({
      kind: 'rejected',
      code: 0x0b,
    });
  });

  it('an MO they send reaches the engine, GSM and UCS-2', async () => {
    const session = sessions[0]!;
    const acks: SmppPdu[] = [];
    session.deliver_sm(
      {
        source_addr: '447700900399',
        source_addr_ton: 1,
        destination_addr: '447700900001',
        short_message: 'Hi from a handset',
      },
      (resp) => acks.push(resp),
    );
    session.deliver_sm(
      {
        source_addr: '447700900399',
        source_addr_ton: 1,
        destination_addr: '447700900001',
        short_message: 'Ответ 👍',
      },
      (resp) => acks.push(resp),
    );
    await waitFor(() => acks.length === 2, 'both deliver_sm_resp');
    expect(acks.map((a) => a.command_status)).toEqual([0, 0]);
    expect(events.messages.map((m) => m.body)).toEqual(['Hi from a handset', 'Ответ 👍']);
    expect(events.messages[0]).toMatchObject({ from: '+447700900399', to: '+447700900001' });
  });

  it('stops with an unbind they answer', async () => {
    await connector.stop();
    expect(connector.state().session).toBe('stopped');
  });
});
