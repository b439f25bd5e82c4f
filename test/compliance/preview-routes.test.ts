import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';

const SMSC = { host: 'smsc.example.net', port: 2775, system_id: 'smsgw', password: 'secret' };

describe('POST /v1/sms/preview with SMPP routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { SMSGW_CARRIER: 'smpp' });
  });
  afterAll(async () => t.close());

  it('names the connector the router tries first, and no_route where no route matches', async () => {
    const admin = (url: string, body: unknown) => call(t, 'POST', `/admin/v1${url}`, body, ADMIN_TOKEN);
    await admin('/connectors', { name: 'au-main', ...SMSC });
    await admin('/connectors', { name: 'au-backup', ...SMSC });
    expect((await admin('/routes', { prefix: '+61', connector: 'au-backup', priority: 2 })).status).toBe(201);
    expect((await admin('/routes', { prefix: '+614', connector: 'au-main', priority: 1 })).status).toBe(201);
    const r = await call(t, 'POST', '/v1/sms/preview', {
      to: ['+61491570156', '+61291570156', '+12025550123'],
      from: 'Acme',
      body: 'hi',
    });
    expect(
      r.body.recipients.map((x: { status: string; connector: string | null }) => [x.status, x.connector]),
    ).toEqual([
      ['ok', 'au-main'],
      ['ok', 'au-backup'],
      ['no_route', null],
    ]);
    expect(r.body.credits_needed).toBe(3);
  });
});
