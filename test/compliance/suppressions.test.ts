import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('suppression list (decisions §17) on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());

  const admin = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
    call(t, method, `/admin/v1${url}`, body, ADMIN_TOKEN);

  it('adds with PUT, lists, keeps the first entry, and removes with DELETE (404 once gone)', async () => {
    const { key } = await t.newAccount();
    const put = await call(t, 'PUT', '/v1/suppressions/61491570156', undefined, key);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      msisdn: '+61491570156',
      reason: 'manual',
      created_at: '2026-11-21T12:00:00.000Z',
    });
    t.clock.now += 1000;
    expect((await call(t, 'PUT', '/v1/suppressions/+61491570156', undefined, key)).body).toEqual(put.body);
    await call(t, 'PUT', '/v1/suppressions/+61491570157', undefined, key);

    const page = await call(t, 'GET', '/v1/suppressions?limit=1', undefined, key);
    expect(page.body).toEqual({ suppressions: [put.body], more_results: true });
    const rest = await call(t, 'GET', '/v1/suppressions?limit=1&offset=1', undefined, key);
    expect(rest.body.suppressions.map((s: { msisdn: string }) => s.msisdn)).toEqual(['+61491570157']);
    expect(rest.body.more_results).toBe(false);
    // Another account's list is its own.
    expect((await call(t, 'GET', '/v1/suppressions')).body).toEqual({
      suppressions: [],
      more_results: false,
    });

    const removed = await call(t, 'DELETE', '/v1/suppressions/+61491570156', undefined, key);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual(put.body);
    const again = await call(t, 'DELETE', '/v1/suppressions/+61491570156', undefined, key);
    expect(again.status).toBe(404);
    expect(again.body.status_code).toBe(404);
  });

  it('refuses a number that is not an msisdn with 403 VAL_ILLEGAL', async () => {
    const r = await call(t, 'PUT', '/v1/suppressions/12ab');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ type: 'VAL_ILLEGAL', arguement: 'msisdn', bad_value: '12ab' });
  });

  it('aborts suppressed recipients with 421 at once, at no cost, and sends to the others', async () => {
    const { account, key } = await t.newAccount({ credits: 10 });
    await call(t, 'PUT', '/v1/suppressions/+61491570150', undefined, key);
    const sent = await call(
      t,
      'POST',
      '/v1/sms/message',
      { to: ['+61491570150', '+61491570151'], from: 'Acme', body: 'hello', send_at: '2030-01-01T00:00:00Z' },
      key,
    );
    expect(sent.status).toBe(201);
    expect(sent.body.num_recipients).toBe(2);
    const read = await call(t, 'GET', `/v1/sms/message/${sent.body.messageID}/status`, undefined, key);
    expect(read.body.to).toEqual({ '+61491570150': 'aborted', '+61491570151': 'pending' });
    const recipients = await call(
      t,
      'GET',
      `/v1/sms/recipients?messageID=${sent.body.messageID}`,
      undefined,
      key,
    );
    const suppressed = recipients.body.data.find((r: { msisdn: string }) => r.msisdn === '+61491570150');
    expect(suppressed).toMatchObject({ status: 'aborted', status_code: 421 });
    expect((await t.store.accounts.get(account.id))!.credits).toBe(9);
  });

  it('aborts the recipients still waiting for a number when it is suppressed later', async () => {
    const { key } = await t.newAccount();
    const scheduled = await call(
      t,
      'POST',
      '/v1/sms/message',
      { to: ['+61491570160', '+61491570161'], from: 'Acme', body: 'later', send_at: '2030-01-01T00:00:00Z' },
      key,
    );
    const queued = await call(
      t,
      'POST',
      '/v1/sms/message',
      { to: ['+61491570160'], from: 'Acme', body: 'now' },
      key,
    );
    await call(t, 'PUT', '/v1/suppressions/+61491570160', undefined, key);
    const read = async (id: number) =>
      (await call(t, 'GET', `/v1/sms/message/${id}/status`, undefined, key)).body.to;
    expect(await read(scheduled.body.messageID)).toEqual({
      '+61491570160': 'aborted',
      '+61491570161': 'pending',
    });
    expect(await read(queued.body.messageID)).toEqual({ '+61491570160': 'aborted' });
    const recipients = await call(
      t,
      'GET',
      `/v1/sms/recipients?messageID=${queued.body.messageID}`,
      undefined,
      key,
    );
    expect(recipients.body.data[0]).toMatchObject({ status: 'aborted', status_code: 421 });
  });

  it('completes a message whose every recipient is suppressed, reserving nothing', async () => {
    const { account, key } = await t.newAccount({ credits: 0 });
    await call(t, 'PUT', '/v1/suppressions/+61491570150', undefined, key);
    const sent = await call(
      t,
      'POST',
      '/v1/sms/message',
      { to: ['61491570150'], from: 'Acme', body: 'x' },
      key,
    );
    expect(sent.status).toBe(201);
    const message = await t.store.messages.get(account.id, sent.body.messageID);
    expect(message).toMatchObject({ openRecipients: 0, completeAt: t.clock.now, creditsReserved: 0 });
  });

  it('suppresses the sender of a STOP keyword and lifts it on START, with the reply from the number', async () => {
    const { account, key } = await t.newAccount();
    await admin('POST', `/accounts/${account.id}/numbers`, { msisdn: '+61400000001' });
    await admin('PATCH', `/accounts/${account.id}`, { opt_out_reply: 'You will get no more messages.' });
    const inbound = (from: string, body: string) =>
      admin('POST', '/simulator/inbound', { from, to: '+61400000001', body });
    const listed = async () =>
      (await call(t, 'GET', '/v1/suppressions', undefined, key)).body.suppressions.map(
        (s: { msisdn: string; reason: string }) => `${s.msisdn}:${s.reason}`,
      );

    for (const [i, body] of [
      ' stop ',
      'Stop\n',
      'STOPALL',
      'unsubscribe',
      'Cancel',
      'end',
      'QuIt',
    ].entries()) {
      expect((await inbound(`+6149157100${i}`, body)).status).toBe(201);
    }
    for (const body of ['stop please', 'STOP!', 'S T O P', 'stopp']) await inbound('+61491571100', body);
    expect(await listed()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `+6149157100${i}:stop`));

    for (const body of ['start', ' UNSTOP', 'Yes '])
      await inbound('+61491571000', 'stop').then(() => inbound('+61491571000', body));
    expect(await listed()).not.toContain('+61491571000:stop');

    // Every keyword is stored and listed like any inbound message.
    const stored = await call(t, 'GET', '/v1/sms/inbound?limit=500', undefined, key);
    expect(stored.body.data.length).toBe(7 + 4 + 6);
    // The answers go out from the number that received the keyword, to its sender.
    const replies = await call(t, 'GET', '/v1/sms/messages?limit=500', undefined, key);
    expect(replies.body.data.length).toBe(7 + 6);
    expect(replies.body.data[0]).toMatchObject({
      from: '+61400000001',
      body: 'You will get no more messages.',
    });
  });

  it('leaves the list alone when opt_out_keywords is off', async () => {
    const { account, key } = await t.newAccount({ optOutKeywords: false });
    await admin('POST', `/accounts/${account.id}/numbers`, { msisdn: '+61400000002' });
    await admin('POST', '/simulator/inbound', { from: '+61491572000', to: '+61400000002', body: 'STOP' });
    expect((await call(t, 'GET', '/v1/suppressions', undefined, key)).body.suppressions).toEqual([]);
    const view = await call(t, 'GET', `/admin/v1/accounts/${account.id}`, undefined, ADMIN_TOKEN);
    expect(view.body).toMatchObject({
      opt_out_keywords: false,
      opt_out_reply: null,
      smart_encoding: false,
      window: null,
    });
  });
});
