import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

const SYDNEY = '+61491570156';
const LONDON = '+447700900123';
const NEW_YORK = '+12025550123';
const at = (iso: string) => Date.parse(iso);

describe.each(ENGINES)('delivery windows (decisions §20) on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());

  const runJobs = (now: number) => t.store.engine.tick((ops) => ops.runMessageJobs(now, 500));
  const statuses = async (id: number) =>
    Object.fromEntries((await t.store.messages.recipientStatuses(id)).map((r) => [r.msisdn, r.status]));

  it('sends to three continents each in its daytime, released when each window opens', async () => {
    // 12:00Z on 2026-11-21: 12:00 in London, 07:00 in New York, 23:00 in Sydney.
    t.clock.now = at('2026-11-21T12:00:00Z');
    const { key } = await t.newAccount();
    const body = {
      to: [SYDNEY, LONDON, NEW_YORK],
      from: 'Acme',
      body: 'Sale today',
      window: { start: '09:00', end: '20:00', timezone: 'recipient' },
    };
    const preview = await call(t, 'POST', '/v1/sms/preview', body, key);
    expect(preview.status).toBe(200);
    expect(preview.body.recipients.map((r: { send_at: string }) => r.send_at)).toEqual([
      '2026-11-21T22:00:00.000Z',
      '2026-11-21T12:00:00.000Z',
      '2026-11-21T14:00:00.000Z',
    ]);

    const sent = await call(t, 'POST', '/v1/sms/message', body, key);
    expect(sent.status).toBe(201);
    const id = sent.body.messageID as number;
    expect(await statuses(id)).toEqual({ [SYDNEY]: 'pending', [LONDON]: 'submitted', [NEW_YORK]: 'pending' });

    expect((await runJobs(at('2026-11-21T13:59:59Z'))).ran).toBe(0);
    await runJobs(at('2026-11-21T14:00:00Z'));
    expect(await statuses(id)).toEqual({
      [SYDNEY]: 'pending',
      [LONDON]: 'submitted',
      [NEW_YORK]: 'submitted',
    });
    // The release job came back for the next opening only: nothing runs before it.
    expect((await runJobs(at('2026-11-21T21:59:59Z'))).ran).toBe(0);
    await runJobs(at('2026-11-21T22:00:00Z'));
    expect(await statuses(id)).toEqual({
      [SYDNEY]: 'submitted',
      [LONDON]: 'submitted',
      [NEW_YORK]: 'submitted',
    });
    expect((await runJobs(at('2026-11-23T00:00:00Z'))).ran).toBe(0);
  });

  it('takes the account default, which a null window turns off, and lets expiry win', async () => {
    t.clock.now = at('2026-11-21T12:00:00Z');
    const { key } = await t.newAccount({
      window: { start: '22:00', end: '06:00', timezone: 'Europe/Paris' },
    });
    const night = await call(
      t,
      'POST',
      '/v1/sms/message',
      { to: [LONDON], from: 'Acme', body: 'x', ttl: 3600 },
      key,
    );
    const any = await call(
      t,
      'POST',
      '/v1/sms/message',
      { to: [LONDON], from: 'Acme', body: 'x', window: null },
      key,
    );
    expect(await statuses(any.body.messageID)).toEqual({ [LONDON]: 'submitted' });
    expect(await statuses(night.body.messageID)).toEqual({ [LONDON]: 'pending' });
    // Expires at 13:00Z, before the window opens at 21:00Z (22:00 in Paris).
    await runJobs(at('2026-11-21T13:00:00Z'));
    expect(await statuses(night.body.messageID)).toEqual({ [LONDON]: 'expired' });
    await runJobs(at('2026-11-21T21:00:00Z'));
    expect(await statuses(night.body.messageID)).toEqual({ [LONDON]: 'expired' });
  });

  it('checks the window again when a paused message is released late', async () => {
    t.clock.now = at('2026-11-21T12:00:00Z');
    const { key } = await t.newAccount();
    const body = {
      to: [LONDON],
      from: 'Acme',
      body: 'x',
      paused: true,
      window: { start: '09:00', end: '17:00', timezone: 'Europe/London' },
    };
    const sent = await call(t, 'POST', '/v1/sms/message', body, key);
    // Released at 18:00 London time: the window has closed since the message was accepted.
    t.clock.now = at('2026-11-21T18:00:00Z');
    const patched = await call(t, 'PATCH', `/v1/sms/message/${sent.body.messageID}`, { paused: false }, key);
    expect(patched.status).toBe(200);
    await runJobs(t.clock.now);
    expect(await statuses(sent.body.messageID)).toEqual({ [LONDON]: 'pending' });
    expect((await runJobs(at('2026-11-22T08:59:59Z'))).ran).toBe(0);
    await runJobs(at('2026-11-22T09:00:00Z'));
    expect(await statuses(sent.body.messageID)).toEqual({ [LONDON]: 'submitted' });
  });

  it('refuses a malformed window with 403 VAL_ILLEGAL, in the body and in the account settings', async () => {
    for (const window of [
      { start: '9:00', end: '17:00', timezone: 'UTC' },
      { start: '09:00', end: '24:00', timezone: 'UTC' },
      { start: '09:00', end: '09:00', timezone: 'UTC' },
      { start: '09:00', end: '17:00', timezone: 'Mars/Olympus' },
    ]) {
      for (const path of ['/v1/sms/message', '/v1/sms/preview']) {
        const r = await call(t, 'POST', path, { to: [LONDON], from: 'Acme', body: 'x', window });
        expect(r.status).toBe(403);
        expect(r.body).toMatchObject({ type: 'VAL_ILLEGAL', arguement: 'window' });
      }
    }
    const r = await call(t, 'POST', '/v1/sms/message', {
      to: [LONDON],
      from: 'Acme',
      body: 'x',
      window: { start: '09:00' },
    });
    expect(r.status).toBe(400);
  });
});
