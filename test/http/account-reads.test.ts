import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

/**
 * The reads an account makes of its own data for the web console (GET /v1/account,
 * /v1/sms/recipients, /v1/webhooks) and the operator's account list (decisions §16).
 */
describe.each(ENGINES)('account reads on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());
  const admin = (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) =>
    call(t, method, `/admin/v1${path}`, body, ADMIN_TOKEN);

  it('GET /v1/account shows the balance as it is now, senders and numbers, and no secret', async () => {
    const { account, key } = await t.newAccount({ anySender: false, credits: 50 });
    await admin('POST', `/accounts/${account.id}/senders`, { sender: 'Shop' });
    await admin('POST', `/accounts/${account.id}/numbers`, { msisdn: '+61491570900', ref: 'desk' });
    expect((await call(t, 'GET', '/v1/account', undefined, key)).body.credits).toBe(50);
    await admin('PATCH', `/accounts/${account.id}`, { add_credits: 7 });

    const r = await call(t, 'GET', '/v1/account', undefined, key);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      accountID: account.id,
      name: account.name,
      timezone: 'UTC',
      credits: 57,
      any_sender: false,
      senders: ['Shop'],
      numbers: [{ msisdn: '+61491570900', ref: 'desk' }],
      callback_url: null,
      inbound_url: null,
      delivery_report: null,
      opt_out_keywords: true,
      opt_out_reply: null,
      smart_encoding: false,
      window: null,
      created_at: expect.any(String),
    });
    expect(JSON.stringify(r.body)).not.toContain('whsec_');
    expect((await call(t, 'GET', '/v1/account', undefined, 'wrong')).status).toBe(401);
  });

  it('GET /v1/sms/recipients lists a message’s recipients in order with status and code', async () => {
    const sent = await call(t, 'POST', '/v1/sms/message', {
      to: ['+61491570156', '+61491570150', '+61491570151'],
      from: 'Acme',
      body: 'hi',
      send_at: '2030-01-01T00:00:00Z',
    });
    const id = sent.body.messageID as number;
    const r = await call(t, 'GET', `/v1/sms/recipients?messageID=${id}&limit=2`);
    expect(r.status).toBe(200);
    expect(r.body.more_results).toBe(true);
    expect(r.body.data).toEqual([
      {
        msisdn: '+61491570156',
        status: 'pending',
        status_code: 100,
        status_at: '2026-11-21T12:00:00.000Z',
        submitted_at: null,
        sent_at: null,
        final_at: null,
        parts: [],
        attempts: [],
      },
      expect.objectContaining({ msisdn: '+61491570150', status: 'pending' }),
    ]);
    const next = await call(t, 'GET', `/v1/sms/recipients?messageID=${id}&limit=2&offset=2`);
    expect(next.body.data.map((d: { msisdn: string }) => d.msisdn)).toEqual(['+61491570151']);
    expect(next.body.more_results).toBe(false);

    await call(t, 'DELETE', `/v1/sms/message/${id}`);
    const cancelled = await call(t, 'GET', `/v1/sms/recipients?messageID=${id}&status=cancelled`);
    expect(cancelled.body.data).toHaveLength(3);
    expect(cancelled.body.data[0]).toMatchObject({ status_code: 400, final_at: '2026-11-21T12:00:00.000Z' });
    expect((await call(t, 'GET', `/v1/sms/recipients?messageID=${id}&status=pending`)).body.data).toEqual([]);
  });

  it('GET /v1/sms/recipients refuses bad arguments and another account’s message', async () => {
    const id = (await call(t, 'POST', '/v1/sms/message', { to: ['+61491570156'], from: 'Acme', body: 'x' }))
      .body.messageID as number;
    const missing = await call(t, 'GET', '/v1/sms/recipients');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ status_code: 400, type: 'ARG_MISSING', arguement: 'messageID' });
    const status = await call(t, 'GET', `/v1/sms/recipients?messageID=${id}&status=lost`);
    expect(status.status).toBe(400);
    expect(status.body.arguement).toBe('status');
    const limit = await call(t, 'GET', `/v1/sms/recipients?messageID=${id}&limit=501`);
    expect(limit.status).toBe(400);

    const other = await t.newAccount();
    const foreign = await call(t, 'GET', `/v1/sms/recipients?messageID=${id}`, undefined, other.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ status_code: 404, status_msg: 'Not Found' });
  });

  it('GET /v1/webhooks shows only the account’s deliveries, and replay is scoped to it', async () => {
    const mine = await t.newAccount({ inboundUrl: 'http://127.0.0.1:9/in' });
    const theirs = await t.newAccount({ inboundUrl: 'http://127.0.0.1:9/in' });
    await admin('POST', `/accounts/${mine.account.id}/numbers`, { msisdn: '+61491570801' });
    await admin('POST', `/accounts/${theirs.account.id}/numbers`, { msisdn: '+61491570802' });
    for (const to of ['+61491570801', '+61491570802', '+61491570801']) {
      const r = await admin('POST', '/simulator/inbound', { from: '+61400000001', to, body: 'hello' });
      expect(r.status).toBe(201);
    }

    const list = await call(t, 'GET', '/v1/webhooks', undefined, mine.key);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data[0]).toMatchObject({
      kind: 'inbound',
      state: 'pending',
      url: 'http://127.0.0.1:9/in',
    });
    expect(list.body.data[0].deliveryID).toBeGreaterThan(list.body.data[1].deliveryID);
    const page = await call(t, 'GET', '/v1/webhooks?limit=1', undefined, mine.key);
    expect(page.body).toMatchObject({
      more_results: true,
      data: [{ deliveryID: list.body.data[0].deliveryID }],
    });
    expect((await call(t, 'GET', '/v1/webhooks?state=sent', undefined, mine.key)).status).toBe(400);

    const theirId = (await call(t, 'GET', '/v1/webhooks', undefined, theirs.key)).body.data[0].deliveryID;
    await t.db.conn.db
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', completed_at: t.clock.now })
      .execute();
    const foreign = await call(t, 'POST', `/v1/webhooks/${theirId}/replay`, undefined, mine.key);
    expect(foreign.status).toBe(404);
    const own = await call(
      t,
      'POST',
      `/v1/webhooks/${list.body.data[0].deliveryID}/replay`,
      undefined,
      mine.key,
    );
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ state: 'pending', completed_at: null });
  });

  it('GET /admin/v1/accounts pages through every account in accountID order', async () => {
    const all = await admin('GET', '/accounts?limit=500');
    expect(all.status).toBe(200);
    expect(all.body.more_results).toBe(false);
    const ids = all.body.accounts.map((a: { accountID: number }) => a.accountID);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const second = await admin('GET', '/accounts?limit=1&offset=1');
    expect(second.body).toMatchObject({ more_results: true, accounts: [{ accountID: ids[1] }] });
    expect(second.body.accounts[0]).not.toHaveProperty('api_key');
    expect((await admin('GET', '/accounts?limit=501')).status).toBe(400);
    expect((await call(t, 'GET', '/admin/v1/accounts', undefined, t.key)).status).toBe(401);
  });
});
