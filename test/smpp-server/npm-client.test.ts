/**
 * decisions §21 with an independent client, the npm `smpp` package: binds, submits (short,
 * long, Unicode, multi), receipts back as deliver_sm, query_sm, cancel_sm, the window, MO.
 */
import smpp from 'smpp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { ADMIN, Client, startSmppHarness, waitFor, type SmppServerHarness } from './harness.js';

describe.each(ENGINES)('SMPP server with the npm smpp client on %s', (engine) => {
  let h: SmppServerHarness;
  const clients: Client[] = [];
  const client = async () => {
    const c = await Client.connect(h.smppPort);
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    h = await startSmppHarness(engine);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => h?.stop());

  const message = async (key: string, id: string) =>
    (await h.http('GET', `/v1/sms/message/${id}/meta,status`, key)).body;

  it('refuses bad credentials with ESME_RBINDFAIL and binds with good ones', async () => {
    await h.customer('alice', 'pw1');
    const c = await client();
    const bad = await c.bind('alice', 'nope');
    expect(bad.command_status).toBe(smpp.errors.ESME_RBINDFAIL);
    const c2 = await client();
    expect((await c2.bind('nobody', 'pw1')).command_status).toBe(smpp.errors.ESME_RBINDFAIL);
    const c3 = await client();
    const ok = await c3.bind('alice', 'pw1');
    expect(ok).toMatchObject({ command_status: 0, system_id: 'smsgw' });
    expect((await c3.call('enquire_link')).command_status).toBe(0);
  });

  it('refuses requests before a bind', async () => {
    const c = await client();
    const r = await c.call('submit_sm', { destination_addr: '447700900001', short_message: 'x' });
    expect(r.command_status).toBe(smpp.errors.ESME_RINVBNDSTS);
  });

  it('submits as the account and sends the receipt back as deliver_sm', async () => {
    const { key } = await h.customer('bob', 'pw');
    const c = await client();
    await c.bind('bob', 'pw');
    const resp = await c.call('submit_sm', {
      source_addr: 'Shop',
      source_addr_ton: 5,
      destination_addr: '447700900001',
      registered_delivery: 1,
      short_message: 'Hello over SMPP',
    });
    expect(resp.command_status).toBe(0);
    const id = String(resp.message_id);
    expect(id).toMatch(/^\d+$/);
    const receipt = await waitFor(
      () => c.delivered.find((d) => d.receipted_message_id === id),
      'the receipt',
    );
    expect(receipt.esm_class).toBe(4);
    expect(receipt.message_state).toBe(2);
    expect(receipt.source_addr).toBe('447700900001');
    expect(receipt.destination_addr).toBe('Shop');
    const text = String((receipt.short_message as { message: string }).message);
    expect(text).toMatch(
      new RegExp(
        `^id:${id} sub:001 dlvrd:1 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:Hello over SMPP$`,
      ),
    );
    const read = await message(key, id);
    expect(read).toMatchObject({
      from: 'Shop',
      body: 'Hello over SMPP',
      to: { '+447700900001': 'delivered' },
    });
  });

  it('reports each final outcome with its stat and message_state', async () => {
    await h.customer('carol', 'pw');
    const c = await client();
    await c.bind('carol', 'pw');
    const cases = [
      ['447700900005', 'UNDELIV', 5],
      ['447700900006', 'REJECTD', 8],
      ['447700900007', 'EXPIRED', 3],
    ] as const;
    for (const [to, stat, state] of cases) {
      const resp = await c.call('submit_sm', {
        source_addr: '61491570156',
        destination_addr: to,
        registered_delivery: 1,
        short_message: 'x',
      });
      const id = String(resp.message_id);
      const r = await waitFor(
        () => c.delivered.find((d) => d.receipted_message_id === id),
        `receipt ${stat}`,
      );
      expect(String((r.short_message as { message: string }).message)).toContain(`stat:${stat}`);
      expect(r.message_state).toBe(state);
    }
  });

  it('sends no receipt without registered_delivery, only failures with 2', async () => {
    await h.customer('dave', 'pw');
    const c = await client();
    await c.bind('dave', 'pw');
    const quiet = await c.call('submit_sm', {
      source_addr: 'Shop',
      destination_addr: '447700900011',
      short_message: 'x',
    });
    const failOnly = await c.call('submit_sm', {
      source_addr: 'Shop',
      destination_addr: '447700900021',
      registered_delivery: 2,
      short_message: 'x',
    });
    const failing = await c.call('submit_sm', {
      source_addr: 'Shop',
      destination_addr: '447700900025',
      registered_delivery: 2,
      short_message: 'x',
    });
    await waitFor(
      () => c.delivered.find((d) => d.receipted_message_id === String(failing.message_id)),
      'the failure receipt',
    );
    // The failure came after the others were delivered (same delay): none of them reported.
    expect(
      c.delivered.filter((d) =>
        [quiet.message_id, failOnly.message_id].includes(d.receipted_message_id as string),
      ),
    ).toEqual([]);
  });

  it('puts long messages back together: UDH 8-bit, UDH 16-bit, SAR and message_payload', async () => {
    const { key } = await h.customer('erin', 'pw');
    const c = await client();
    await c.bind('erin', 'pw');
    const text = 'A'.repeat(150) + 'B'.repeat(150);
    const halves = [Buffer.from(text.slice(0, 153)), Buffer.from(text.slice(153))];
    const udh8 = (seq: number) => Buffer.of(5, 0, 3, 0x42, 2, seq);
    const udh16 = (seq: number) => Buffer.of(6, 8, 4, 0x12, 0x34, 2, seq);
    const ids: string[] = [];
    for (const udh of [udh8, udh16]) {
      let last = '';
      for (const seq of [1, 2]) {
        const r = await c.call('submit_sm', {
          source_addr: 'Shop',
          destination_addr: '447700900031',
          esm_class: 0x40,
          short_message: Buffer.concat([udh(seq), halves[seq - 1]!]),
        });
        expect(r.command_status).toBe(0);
        last = String(r.message_id);
      }
      ids.push(last);
    }
    let last = '';
    for (const seq of [1, 2]) {
      const r = await c.call('submit_sm', {
        source_addr: 'Shop',
        destination_addr: '447700900031',
        short_message: halves[seq - 1]!,
        sar_msg_ref_num: 7,
        sar_total_segments: 2,
        sar_segment_seqnum: seq,
      });
      last = String(r.message_id);
    }
    ids.push(last);
    const payload = await c.call('submit_sm', {
      source_addr: 'Shop',
      destination_addr: '447700900031',
      message_payload: Buffer.from(text),
    });
    ids.push(String(payload.message_id));
    for (const id of ids) {
      expect(id).toMatch(/^\d+$/);
      expect(await message(key, id)).toMatchObject({ body: text, num_parts: 2 });
    }
  });

  it('sends a receipt for each part id of a long submit, the messageID last', async () => {
    await h.customer('parts', 'pw');
    const c = await client();
    await c.bind('parts', 'pw');
    const answers = [];
    for (const seq of [1, 2]) {
      answers.push(
        await c.call('submit_sm', {
          source_addr: 'Shop',
          destination_addr: '447700900032',
          esm_class: 0x40,
          registered_delivery: 1,
          short_message: Buffer.concat([Buffer.of(5, 0, 3, 0x99, 2, seq), Buffer.from('x'.repeat(150))]),
        }),
      );
    }
    const [first, last] = answers.map((a) => String(a.message_id));
    expect(first).toMatch(/^p[0-9a-f]+-\d+$/);
    expect(last).toMatch(/^\d+$/);
    for (const id of [first, last])
      await waitFor(() => c.delivered.find((d) => d.receipted_message_id === id), `the receipt for ${id}`);
  });

  it('reads data_coding 8 (UCS-2) and 3 (Latin-1), and data_sm', async () => {
    const { key } = await h.customer('fred', 'pw');
    const c = await client();
    await c.bind('fred', 'pw');
    const ucs2 = await c.call('submit_sm', {
      source_addr: 'Shop',
      destination_addr: '447700900041',
      data_coding: 8,
      short_message: Buffer.from('Привет 👋', 'utf16le').swap16(),
    });
    expect((await message(key, String(ucs2.message_id))).body).toBe('Привет 👋');
    const latin1 = await c.call('submit_sm', {
      source_addr: 'Shop',
      destination_addr: '447700900041',
      data_coding: 3,
      short_message: Buffer.from('Café', 'latin1'),
    });
    expect((await message(key, String(latin1.message_id))).body).toBe('Café');
    const data = await c.call('data_sm', {
      source_addr: 'Shop',
      destination_addr: '447700900041',
      message_payload: Buffer.from('by data sm'),
    });
    expect(data.command_status).toBe(0);
    expect((await message(key, String(data.message_id))).body).toBe('by data sm');
  });

  it('submit_multi: one message to every valid destination, the others listed', async () => {
    const { key } = await h.customer('gina', 'pw');
    const c = await client();
    await c.bind('gina', 'pw');
    const r = await c.call('submit_multi', {
      source_addr: 'Shop',
      dest_address: [
        { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '447700900051' },
        { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '447700900052' },
        { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: 'nonsense' },
      ],
      short_message: 'to many',
    });
    expect(r.command_status).toBe(0);
    expect(r.unsuccess_sme).toEqual([
      {
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        destination_addr: 'nonsense',
        error_status_code: smpp.errors.ESME_RINVDSTADR,
      },
    ]);
    const read = await message(key, String(r.message_id));
    expect(Object.keys(read.to).sort()).toEqual(['+447700900051', '+447700900052']);
  });

  it('refuses an unvalidated sender and a submit over the credit with SMPP statuses', async () => {
    await h.customer('hank', 'pw', {}, { any_sender: false, credits: 1 });
    const c = await client();
    await c.bind('hank', 'pw');
    const sender = await c.call('submit_sm', {
      source_addr: 'Nope',
      destination_addr: '447700900061',
      short_message: 'x',
    });
    expect(sender.command_status).toBe(smpp.errors.ESME_RINVSRCADR);
    const dest = await c.call('submit_sm', {
      source_addr: 'Nope',
      destination_addr: '12',
      short_message: 'x',
    });
    expect(dest.command_status).toBe(smpp.errors.ESME_RINVDSTADR);
  });

  it('query_sm and cancel_sm on the account own messages', async () => {
    const { key } = await h.customer('ivy', 'pw');
    const c = await client();
    await c.bind('ivy', 'pw');
    // Scheduled an hour ahead (relative time), so it stays cancellable.
    const later = await c.call('submit_sm', {
      source_addr: 'Shop',
      destination_addr: '447700900071',
      schedule_delivery_time: '000000010000000R',
      short_message: 'later',
    });
    expect(later.command_status).toBe(0);
    const id = String(later.message_id);
    const q = await c.call('query_sm', { message_id: id, source_addr: 'Shop' });
    expect(q).toMatchObject({ command_status: 0, message_id: id, message_state: 1 });
    expect((await c.call('cancel_sm', { message_id: id, source_addr: 'Shop' })).command_status).toBe(0);
    expect((await message(key, id)).to).toEqual({ '+447700900071': 'cancelled' });
    const after = await c.call('query_sm', { message_id: id, source_addr: 'Shop' });
    expect(after).toMatchObject({ command_status: 0, message_state: 4 });
    expect((await c.call('cancel_sm', { message_id: id })).command_status).toBe(smpp.errors.ESME_RCANCELFAIL);
    expect((await c.call('query_sm', { message_id: '999999999' })).command_status).toBe(
      smpp.errors.ESME_RQUERYFAIL,
    );
  });

  it('answers a submit sent again unchanged (same sequence_number) with the first answer', async () => {
    const { key } = await h.customer('retry', 'pw');
    const c = await client();
    await c.bind('retry', 'pw');
    const fields = {
      sequence_number: 4242,
      source_addr: 'Shop',
      destination_addr: '447700900111',
      short_message: 'once',
    };
    const first = await c.call('submit_sm', fields);
    const again = await c.call('submit_sm', fields);
    expect(again.message_id).toBe(first.message_id);
    const changed = await c.call('submit_sm', { ...fields, short_message: 'twice' });
    expect(changed.message_id).not.toBe(first.message_id);
    const list = await h.http('GET', '/v1/sms/messages', key);
    expect(list.body.data.map((m: { body: string }) => m.body).sort()).toEqual(['once', 'twice']);
  });

  it('answers ESME_RTHROTTLED over the window', async () => {
    await h.customer('jack', 'pw', { window: 1 });
    const c = await client();
    await c.bind('jack', 'pw');
    const all = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        c.call('submit_sm', { source_addr: 'Shop', destination_addr: `44770090008${i}`, short_message: 'x' }),
      ),
    );
    const statuses = all.map((r) => r.command_status);
    expect(statuses).toContain(0);
    expect(statuses).toContain(smpp.errors.ESME_RTHROTTLED);
  });

  it('ends a bind whose credentials were removed at its next request', async () => {
    const { id } = await h.customer('gone', 'pw');
    const c = await client();
    await c.bind('gone', 'pw');
    const before = await c.call('submit_sm', {
      source_addr: 'Shop',
      destination_addr: '447700900121',
      short_message: 'x',
    });
    expect(before.command_status).toBe(0);
    expect((await h.http('DELETE', `/admin/v1/accounts/${id}/smpp`, ADMIN)).status).toBe(200);
    const after = await waitFor(async () => {
      const r = await c.call('submit_sm', {
        source_addr: 'Shop',
        destination_addr: '447700900121',
        short_message: 'x',
      });
      return r.command_status === 0 ? undefined : r;
    }, 'a refused submit');
    expect(after.command_status).toBe(smpp.errors.ESME_RINVBNDSTS);
    await c.closed();
    expect(c.unbound).toBe(true);
    const again = await client();
    expect((await again.bind('gone', 'pw')).command_status).toBe(smpp.errors.ESME_RBINDFAIL);
  });

  it('holds max_binds across binds of the account', async () => {
    await h.customer('kim', 'pw', { max_binds: 1 });
    const a = await client();
    expect((await a.bind('kim', 'pw')).command_status).toBe(0);
    const b = await client();
    expect((await b.bind('kim', 'pw')).command_status).toBe(smpp.errors.ESME_RBINDFAIL);
    expect((await a.call('unbind')).command_status).toBe(0);
    await a.closed();
    const c = await client();
    expect(
      await waitFor(
        async () => ((await c.bind('kim', 'pw')).command_status === 0 ? true : undefined),
        'a free bind',
      ),
    ).toBe(true);
  });

  it('keeps receipts while nobody is bound and delivers them at the next bind', async () => {
    await h.customer('lou', 'pw');
    const tx = await client();
    await tx.bind('lou', 'pw', 'bind_transmitter');
    const r = await tx.call('submit_sm', {
      source_addr: 'Shop',
      destination_addr: '447700900091',
      registered_delivery: 1,
      short_message: 'wait for me',
    });
    const id = String(r.message_id);
    const account = (await h.server.store.smpp.users.findBySystemId('lou'))!.accountId;
    await waitFor(
      async () => ((await h.server.store.smpp.deliveries.pending(account)) === 1 ? true : undefined),
      'a queued receipt',
    );
    expect(tx.delivered).toEqual([]);
    const rx = await client();
    await rx.bind('lou', 'pw', 'bind_receiver');
    await waitFor(() => rx.delivered.find((d) => d.receipted_message_id === id), 'the held receipt');
    await waitFor(
      async () => ((await h.server.store.smpp.deliveries.pending(account)) === 0 ? true : undefined),
      'done',
    );
  });

  it('sends MO for the account to its receiver bind', async () => {
    const { id } = await h.customer('mo', 'pw');
    expect(
      (await h.http('POST', `/admin/v1/accounts/${id}/numbers`, ADMIN, { msisdn: '+447700900999' })).status,
    ).toBe(201);
    const c = await client();
    await c.bind('mo', 'pw', 'bind_receiver');
    const inbound = await h.http('POST', '/admin/v1/simulator/inbound', ADMIN, {
      from: '+447700900123',
      to: '+447700900999',
      body: 'Hi from a handset',
    });
    expect(inbound.status).toBe(201);
    const mo = await waitFor(() => c.delivered.find((d) => d.esm_class === 0), 'the MO');
    expect(mo).toMatchObject({ source_addr: '447700900123', destination_addr: '447700900999' });
    expect(String((mo.short_message as { message: string }).message)).toBe('Hi from a handset');
  });
});
