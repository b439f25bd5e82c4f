import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('admin API on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());
  const admin = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
    call(t, method, `/admin/v1${path}`, body, ADMIN_TOKEN);

  it('refuses requests without the admin token, and an API key is not an admin token', async () => {
    for (const key of [null, 'wrong', t.key]) {
      const r = await call(t, 'POST', '/admin/v1/accounts', { name: 'x' }, key);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ status_code: 401, status_msg: 'Unauthorized' });
    }
  });

  it('refuses everything when SMSGW_ADMIN_TOKEN is unset', async () => {
    const open = await createTestApp(engine, { SMSGW_ADMIN_TOKEN: '' });
    const r = await call(open, 'POST', '/admin/v1/accounts', { name: 'x' }, '');
    expect(r.status).toBe(401);
    await open.close();
  });

  it('creates an account whose key works once shown, stored hashed', async () => {
    const r = await admin('POST', '/accounts', {
      name: 'shop',
      timezone: 'Europe/London',
      credits: 100,
      callback_url: 'https://example.com/dlr',
      delivery_report: 'summary',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      accountID: expect.any(Number),
      name: 'shop',
      timezone: 'Europe/London',
      credits: 100,
      any_sender: false,
      callback_url: 'https://example.com/dlr',
      inbound_url: null,
      delivery_report: 'summary',
      api_key: expect.stringMatching(/^sk_/),
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    const rows = await t.db.conn.db.selectFrom('api_keys').select('key_hash').execute();
    expect(rows.map((k) => k.key_hash)).not.toContain(r.body.api_key);
    // The key authenticates, and the account needs a validated sender.
    const send = await call(
      t,
      'POST',
      '/v1/sms/message',
      { to: ['+61491570156'], from: 'Shop', body: 'hi' },
      r.body.api_key,
    );
    expect(send.status).toBe(403);
    expect((await admin('POST', `/accounts/${r.body.accountID}/senders`, { sender: 'Shop' })).status).toBe(
      201,
    );
    const ok = await call(
      t,
      'POST',
      '/v1/sms/message',
      { to: ['+61491570156'], from: 'Shop', body: 'hi' },
      r.body.api_key,
    );
    expect(ok.status).toBe(201);
    const read = await admin('GET', `/accounts/${r.body.accountID}`);
    expect(read.body).toMatchObject({ credits: 99, senders: ['Shop'] });
    expect(read.body.api_key).toBeUndefined();
    expect(read.body.keys).toHaveLength(1);
  });

  it('validates account fields', async () => {
    expect((await admin('POST', '/accounts', {})).body).toMatchObject({
      type: 'ARG_MISSING',
      arguement: 'name',
    });
    expect((await admin('POST', '/accounts', { name: 'a', timezone: 'Mars/Base' })).body).toMatchObject({
      type: 'VAL_ILLEGAL',
      arguement: 'timezone',
    });
    expect((await admin('POST', '/accounts', { name: 'a', credits: -1 })).body).toMatchObject({
      type: 'VAL_ILLEGAL',
      arguement: 'credits',
    });
    expect(
      (await admin('POST', '/accounts', { name: 'a', callback_url: 'javascript:x' })).body,
    ).toMatchObject({ arguement: 'callback_url' });
    expect((await admin('POST', '/accounts', { name: 'a', delivery_report: 'weekly' })).body).toMatchObject({
      arguement: 'delivery_report',
    });
    await admin('POST', '/accounts', { name: 'dup' });
    expect((await admin('POST', '/accounts', { name: 'dup' })).status).toBe(409);
  });

  it('400 JSON_INVALID for a body nested deeper than the parser allows', async () => {
    const deep = `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    for (const [method, path] of [
      ['POST', '/accounts'],
      ['PATCH', `/accounts/${t.account.id}`],
      ['POST', '/connectors'],
    ] as const) {
      const r = await admin(method, path, deep);
      expect(r.status, path).toBe(400);
      expect(r.body).toMatchObject({ status_code: 400, type: 'JSON_INVALID', arguement: null });
    }
  });

  it('changes settings, sets and adds credit, rotates the webhook secret', async () => {
    const created = await admin('POST', '/accounts', { name: 'settings' });
    const id = created.body.accountID;
    const patched = await admin('PATCH', `/accounts/${id}`, {
      credits: 10,
      inbound_url: 'https://example.com/in',
      any_sender: true,
    });
    expect(patched.body).toMatchObject({
      credits: 10,
      inbound_url: 'https://example.com/in',
      any_sender: true,
    });
    expect((await admin('PATCH', `/accounts/${id}`, { add_credits: 5 })).body.credits).toBe(15);
    const rotated = await admin('PATCH', `/accounts/${id}`, { rotate_webhook_secret: true });
    expect(rotated.body.webhook_secret).not.toBe(created.body.webhook_secret);
    const row = await t.store.accounts.get(id);
    expect(row?.prevWebhookSecret).toBe(created.body.webhook_secret);
    expect((await admin('PATCH', `/accounts/999999`, { credits: 1 })).status).toBe(404);
    expect((await admin('GET', `/accounts/abc`)).status).toBe(404);
  });

  it('issues and revokes keys', async () => {
    const created = await admin('POST', '/accounts', { name: 'keys', any_sender: true });
    const id = created.body.accountID;
    const second = await admin('POST', `/accounts/${id}/keys`);
    expect(second.status).toBe(201);
    const body = { to: ['+61491570156'], from: 'X', body: 'hi' };
    expect((await call(t, 'POST', '/v1/sms/message', body, second.body.api_key)).status).toBe(201);
    expect((await admin('DELETE', `/accounts/${id}/keys/${second.body.keyID}`)).status).toBe(200);
    expect((await call(t, 'POST', '/v1/sms/message', body, second.body.api_key)).status).toBe(401);
    expect((await call(t, 'POST', '/v1/sms/message', body, created.body.api_key)).status).toBe(201);
    expect((await admin('DELETE', `/accounts/${id}/keys/${second.body.keyID}`)).status).toBe(404);
  });

  it('validates and withdraws senders, msisdn or alphanumeric', async () => {
    const created = await admin('POST', '/accounts', { name: 'senders' });
    const id = created.body.accountID;
    expect((await admin('POST', `/accounts/${id}/senders`, { sender: '61491570100' })).body.sender).toBe(
      '+61491570100',
    );
    expect((await admin('POST', `/accounts/${id}/senders`, { sender: 'Too long a name' })).status).toBe(403);
    const send = (from: string) =>
      call(t, 'POST', '/v1/sms/message', { to: ['+61491570156'], from, body: 'hi' }, created.body.api_key);
    expect((await send('+61491570100')).status).toBe(201);
    expect((await admin('DELETE', `/accounts/${id}/senders/%2B61491570100`)).status).toBe(200);
    expect((await send('+61491570100')).status).toBe(403);
    expect((await admin('DELETE', `/accounts/${id}/senders/%2B61491570100`)).status).toBe(404);
  });

  it('routes inbound numbers with a ref, each number to one account', async () => {
    const a = await admin('POST', '/accounts', { name: 'numbers-a' });
    const b = await admin('POST', '/accounts', { name: 'numbers-b' });
    const r = await admin('POST', `/accounts/${a.body.accountID}/numbers`, {
      msisdn: '61491570199',
      ref: 'support',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ msisdn: '+61491570199', ref: 'support', accountID: a.body.accountID });
    expect(
      (await admin('POST', `/accounts/${b.body.accountID}/numbers`, { msisdn: '+61491570199' })).status,
    ).toBe(409);
    expect((await admin('POST', `/accounts/${b.body.accountID}/numbers`, { msisdn: 'nope' })).status).toBe(
      403,
    );
    expect((await admin('GET', `/accounts/${a.body.accountID}`)).body.numbers).toEqual([
      expect.objectContaining({ msisdn: '+61491570199', ref: 'support' }),
    ]);
  });
});
