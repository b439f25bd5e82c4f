/**
 * Our simulator against an independent ESME: the npm `smpp` package's client binds,
 * submits, and gets receipts and MO messages the way the simulator promises.
 */
import smpp, { type SmppPdu, type SmppSession } from 'smpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmscSimulator } from '../../../../src/carriers/smpp/smsc/index.js';
import { Harness, waitFor } from '../helpers.js';

function call(
  session: SmppSession,
  command: 'bind_transceiver' | 'submit_sm',
  options: Record<string, unknown>,
): Promise<SmppPdu> {
  return new Promise((resolve) => session[command](options, resolve));
}

describe('npm smpp client ↔ our smsc-sim', () => {
  const h = new Harness();
  let sim: SmscSimulator;
  let session: SmppSession;
  const delivered: SmppPdu[] = [];

  beforeAll(async () => {
    sim = await h.sim({ systemId: 'their-esme', password: 'pw', receiptDelayMs: 50 });
    session = smpp.connect({ host: '127.0.0.1', port: sim.port });
    session.on('error', () => {});
    session.on('deliver_sm', (pdu) => {
      delivered.push(pdu);
      session.send(pdu.response());
    });
    h.add(async () => session.destroy());
    await new Promise<void>((ok) => session.once('connect', () => ok()));
  });
  afterAll(() => h.stopAll());

  it('refuses a wrong password, then accepts the right one', async () => {
    const wrong = await call(session, 'bind_transceiver', { system_id: 'their-esme', password: 'nope' });
    expect(wrong.command_status).toBe(smpp.errors.ESME_RINVPASWD);
    const right = await call(session, 'bind_transceiver', { system_id: 'their-esme', password: 'pw' });
    expect(right).toMatchObject({ command_status: 0, system_id: 'smsgw-sim' });
  });

  it('answers enquire_link', async () => {
    const resp = await new Promise<SmppPdu>((ok) => session.enquire_link(ok));
    expect(resp).toMatchObject({ command: 'enquire_link_resp', command_status: 0 });
  });

  it('accepts a submit and sends a DELIVRD receipt quoting its id', async () => {
    const resp = await call(session, 'submit_sm', {
      source_addr: 'SMSGW',
      source_addr_ton: 5,
      destination_addr: '447700900401',
      registered_delivery: 1,
      short_message: 'Hello simulator',
    });
    expect(resp.command_status).toBe(0);
    const id = String(resp.message_id);
    const receipt = await waitFor(() => delivered.find((d) => d.receipted_message_id === id), 'the receipt');
    expect(receipt).toMatchObject({
      esm_class: 0x04,
      message_state: 2,
      source_addr: '447700900401',
      destination_addr: 'SMSGW',
    });
    expect((receipt.short_message as { message: string }).message).toMatch(
      new RegExp(`^id:${id} sub:001 dlvrd:001 .*stat:DELIVRD err:000$`),
    );
    expect(sim.stats.texts('447700900401')).toEqual(['Hello simulator']);
  });

  it('answers last digit 6 with ESME_RSUBMITFAIL and 5 with an UNDELIV receipt', async () => {
    const refused = await call(session, 'submit_sm', {
      destination_addr: '447700900406',
      short_message: 'x',
    });
    expect(refused.command_status).toBe(smpp.errors.ESME_RSUBMITFAIL);
    const failed = await call(session, 'submit_sm', {
      destination_addr: '447700900405',
      registered_delivery: 1,
      short_message: 'x',
    });
    const id = String(failed.message_id);
    const receipt = await waitFor(() => delivered.find((d) => d.receipted_message_id === id), 'the receipt');
    expect(receipt).toMatchObject({ message_state: 5 });
  });

  it('takes a UDH-concatenated message: one id and one receipt per part', async () => {
    const ids: string[] = [];
    for (const [seq, message] of [
      [1, 'first half, '],
      [2, 'second half'],
    ] as const) {
      const udh = Buffer.from([0x05, 0x00, 0x03, 0x2a, 0x02, seq]);
      const resp = await call(session, 'submit_sm', {
        destination_addr: '447700900402',
        registered_delivery: 1,
        short_message: { udh, message },
      });
      ids.push(String(resp.message_id));
    }
    expect(new Set(ids).size).toBe(2);
    expect(sim.stats.texts('447700900402')).toEqual(['first half, second half']);
    await waitFor(
      () => ids.every((id) => delivered.some((d) => d.receipted_message_id === id)),
      'two receipts',
    );
  });

  it('delivers an injected MO', async () => {
    expect(await sim.injectMo('+447700900499', '+447700900001', 'Reply from a handset')).toBe(true);
    const mo = delivered.at(-1)!;
    expect(mo).toMatchObject({ source_addr: '447700900499', source_addr_ton: 1, esm_class: 0 });
    expect((mo.short_message as { message: string }).message).toBe('Reply from a handset');
  });

  it('answers unbind', async () => {
    const resp = await new Promise<SmppPdu>((ok) => session.unbind(ok));
    expect(resp).toMatchObject({ command: 'unbind_resp', command_status: 0 });
    await waitFor(() => sim.stats.unbinds === 1, 'the unbind count');
  });
});
