/** The simulator seen from a bare SMPP client: bind rules, bad PDUs, receipts on the wire. */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CommandStatus,
  getTlv,
  makePdu,
  parseReceiptText,
  tlv,
  type Pdu,
} from '../../../../src/carriers/smpp/pdu/index.js';
import { Link, type Outgoing } from '../../../../src/carriers/smpp/session/index.js';
import type { SmscSimulator } from '../../../../src/carriers/smpp/smsc/index.js';
import { Harness, testLogger, waitFor } from '../helpers.js';

/** A raw client: our Link, recording what the simulator sends it and answering deliver_sm. */
async function client(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((ok) => socket.once('connect', ok));
  const delivered: Pdu[] = [];
  const link: Link = new Link(socket, {
    logger: testLogger,
    enquireLinkMs: 0,
    responseTimeoutMs: 5_000,
    onRequest: (pdu) => {
      delivered.push(pdu);
      if (pdu.command === 'deliver_sm')
        link.send(makePdu('deliver_sm_resp', { sequenceNumber: pdu.sequenceNumber }));
    },
  });
  const ask = async (pdu: Outgoing) => {
    const reply = await link.request(pdu, 5_000);
    if (reply.kind !== 'response') throw new Error(reply.detail);
    return reply.pdu;
  };
  const bind = (command: 'bind_transceiver' | 'bind_transmitter' | 'bind_receiver') =>
    ask({ ...makePdu(command, { sequenceNumber: 0, systemId: 'raw', password: 'pw' }) });
  return { link, socket, delivered, ask, bind };
}

const submit = (fields: Partial<Omit<Extract<Pdu, { command: 'submit_sm' }>, 'command'>>) =>
  makePdu('submit_sm', { sequenceNumber: 0, shortMessage: Buffer.from('hi'), ...fields });

describe('smsc-sim on the wire', () => {
  const h = new Harness();
  let sim: SmscSimulator;
  beforeAll(async () => {
    sim = await h.sim({ receiptDelayMs: 20 });
  });
  afterAll(() => h.stopAll());

  it('refuses a submit before bind and a second bind', async () => {
    const c = await client(sim.port);
    h.add(async () => c.link.destroy('done'));
    expect((await c.ask(submit({ destinationAddr: '1' }))).commandStatus).toBe(CommandStatus.ESME_RINVBNDSTS);
    expect((await c.bind('bind_transceiver')).commandStatus).toBe(0);
    expect((await c.bind('bind_transceiver')).commandStatus).toBe(CommandStatus.ESME_RALYBND);
  });

  it('a receiver may not submit', async () => {
    const c = await client(sim.port);
    h.add(async () => c.link.destroy('done'));
    await c.bind('bind_receiver');
    expect((await c.ask(submit({ destinationAddr: '1' }))).commandStatus).toBe(CommandStatus.ESME_RINVBNDSTS);
  });

  it('answers an unknown command with generic_nack and a broken frame by closing', async () => {
    const c = await client(sim.port);
    c.socket.write(Buffer.from('00000010' + '000000aa' + '00000000' + '00000007', 'hex'));
    await waitFor(() => !c.link.isOpen || undefined, 'nothing', 300).catch(() => {});
    expect(c.link.isOpen).toBe(true);
    c.socket.write(Buffer.from('0000000800000000', 'hex'));
    expect(await c.link.closed).toBeTruthy();
  });

  it('sends the receipt as deliver_sm with esm_class 0x04, the Appendix B text and the TLVs', async () => {
    const c = await client(sim.port);
    h.add(async () => c.link.destroy('done'));
    await c.bind('bind_transceiver');
    const resp = await c.ask(
      submit({
        sourceAddr: 'SMSGW',
        sourceAddrTon: 5,
        destinationAddr: '447700900807',
        destAddrTon: 1,
        registeredDelivery: 1,
      }),
    );
    const id = resp.command === 'submit_sm_resp' ? resp.messageId : '';
    const receipt = await waitFor(() => c.delivered.find((d) => d.command === 'deliver_sm'), 'the receipt');
    if (receipt.command !== 'deliver_sm') throw new Error('not a deliver_sm');
    expect(receipt).toMatchObject({
      esmClass: 0x04,
      sourceAddr: '447700900807',
      sourceAddrTon: 1,
      destinationAddr: 'SMSGW',
      destAddrTon: 5,
    });
    expect(getTlv(receipt.tlvs, 'receipted_message_id')).toBe(id);
    expect(getTlv(receipt.tlvs, 'message_state')).toBe(3);
    const text = receipt.shortMessage.toString('latin1');
    expect(text).toMatch(
      /^id:\S+ sub:001 dlvrd:000 submit date:\d{10} done date:\d{10} stat:EXPIRED err:027$/,
    );
    expect(parseReceiptText(text)).toMatchObject({ id, stat: 'EXPIRED' });
  });

  it('registered_delivery 2 asks for failure receipts only; data_sm is served too', async () => {
    const c = await client(sim.port);
    h.add(async () => c.link.destroy('done'));
    await c.bind('bind_transceiver');
    await c.ask(submit({ destinationAddr: '447700900810', registeredDelivery: 2 }));
    await c.ask(submit({ destinationAddr: '447700900815', registeredDelivery: 2 }));
    const data = await c.ask(
      makePdu('data_sm', {
        sequenceNumber: 0,
        destinationAddr: '447700900820',
        tlvs: [tlv('message_payload', Buffer.from('payload'))],
      }),
    );
    expect(data).toMatchObject({ command: 'data_sm_resp', commandStatus: 0 });
    await waitFor(() => c.delivered.length >= 1, 'a receipt');
    await new Promise((r) => setTimeout(r, 200));
    expect(c.delivered.map((d) => d.command === 'deliver_sm' && d.destinationAddr)).toHaveLength(1);
    expect(sim.stats.texts('447700900820')).toEqual(['payload']);
  });

  it('keeps receipts while no receiver is bound and sends them on the next bind', async () => {
    const alone = await h.sim({ receiptDelayMs: 20 });
    const tx = await client(alone.port);
    await tx.bind('bind_transmitter');
    await tx.ask(submit({ destinationAddr: '447700900830', registeredDelivery: 1 }));
    await new Promise((r) => setTimeout(r, 100));
    tx.link.destroy('done');
    const rx = await client(alone.port);
    h.add(async () => rx.link.destroy('done'));
    await rx.bind('bind_receiver');
    await waitFor(() => rx.delivered.length >= 1, 'the held receipt');
  });
});
