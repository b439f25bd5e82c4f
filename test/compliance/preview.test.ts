import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

const CURLY = '\u2019';

describe.each(ENGINES)('POST /v1/sms/preview (decisions §18) and smart encoding (§19) on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());

  const preview = (body: unknown, key?: string) => call(t, 'POST', '/v1/sms/preview', body, key);
  const send = (body: unknown, key?: string) => call(t, 'POST', '/v1/sms/message', body, key);

  it('tells parts, encoding, credits and each recipient, storing and reserving nothing', async () => {
    const { account, key } = await t.newAccount({ credits: 100 });
    await call(t, 'PUT', '/v1/suppressions/+61491570150', undefined, key);
    const body = {
      to: ['61491570150', '+61491570151', '+61491570151', '+61491570152'],
      from: 'Acme',
      body: 'a'.repeat(161),
    };
    const r = await preview(body, key);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      num_parts: 2,
      encoding: 'GSM-7',
      characters: 161,
      num_recipients: 3,
      credits_needed: 4,
      body: 'a'.repeat(161),
      recipients: [
        {
          msisdn: '+61491570150',
          status: 'suppressed',
          connector: null,
          send_at: '2026-11-21T12:00:00.000Z',
        },
        { msisdn: '+61491570151', status: 'ok', connector: 'simulator', send_at: '2026-11-21T12:00:00.000Z' },
        { msisdn: '+61491570152', status: 'ok', connector: 'simulator', send_at: '2026-11-21T12:00:00.000Z' },
      ],
    });
    expect((await t.store.accounts.get(account.id))!.credits).toBe(100);
    expect((await call(t, 'GET', '/v1/sms/messages', undefined, key)).body.data).toEqual([]);

    // The send it previewed makes the same decisions.
    const sent = await send(body, key);
    expect(sent.body).toMatchObject({ num_parts: 2, num_recipients: 3 });
    expect((await t.store.accounts.get(account.id))!.credits).toBe(96);
  });

  it('answers with the errors the POST answers with', async () => {
    const { key } = await t.newAccount({ credits: 1 });
    const cases = [
      { to: ['12ab'], from: 'Acme', body: 'x' },
      { to: ['+61491570151'], from: 'Acme', body: 'x', ttl: 5, expires_at: '2030-01-01T00:00:00Z' },
      { to: ['+61491570151'], from: 'Acme', body: '' },
      { to: ['+61491570151', '+61491570152'], from: 'Acme', body: 'x' },
      { to: ['+61491570151'], from: 'Acme', body: 'x'.repeat(161), num_parts_max: 1 },
    ];
    for (const body of cases) {
      const [p, s] = [await preview(body, key), await send(body, key)];
      expect({ status: p.status, body: p.body }).toEqual({ status: s.status, body: s.body });
    }
    expect((await preview(cases[3], key)).body).toMatchObject({
      status_code: 403,
      type: 'CREDIT_INSUFFICIENT',
    });
    expect((await preview(cases[4], key)).body).toMatchObject({ num_parts: 2, num_parts_max: 1 });
  });

  it('counts parts and credits on the replaced body with smart_encoding, at 70/71 and 160/161', async () => {
    const { key } = await t.newAccount();
    const text = (n: number) => CURLY + 'a'.repeat(n - 1);
    const parts = async (n: number, smart?: boolean) => {
      const r = await preview(
        {
          to: ['+61491570151'],
          from: 'Acme',
          body: text(n),
          ...(smart !== undefined && { smart_encoding: smart }),
        },
        key,
      );
      return [r.body.encoding, r.body.num_parts, r.body.credits_needed];
    };
    expect(await parts(70)).toEqual(['UCS-2', 1, 1]);
    expect(await parts(71)).toEqual(['UCS-2', 2, 2]);
    expect(await parts(71, true)).toEqual(['GSM-7', 1, 1]);
    expect(await parts(160, true)).toEqual(['GSM-7', 1, 1]);
    expect(await parts(161, true)).toEqual(['GSM-7', 2, 2]);

    // The body is stored and sent as replaced, and reads show it so.
    const sent = await send(
      { to: ['+61491570151'], from: 'Acme', body: `It${CURLY}s \u201Cfine\u201D`, smart_encoding: true },
      key,
    );
    expect(sent.body.num_parts).toBe(1);
    const read = await call(t, 'GET', `/v1/sms/message/${sent.body.messageID}/meta`, undefined, key);
    expect(read.body).toMatchObject({ body: 'It\'s "fine"', num_parts: 1 });
  });

  it('takes the account setting as the default, which a message may turn off', async () => {
    const { key } = await t.newAccount({ smartEncoding: true });
    const body = { to: ['+61491570151'], from: 'Acme', body: `${CURLY}`.repeat(71) };
    expect((await preview(body, key)).body).toMatchObject({
      encoding: 'GSM-7',
      num_parts: 1,
      body: "'".repeat(71),
    });
    expect((await preview({ ...body, smart_encoding: false }, key)).body).toMatchObject({
      encoding: 'UCS-2',
      num_parts: 2,
    });
  });
});
