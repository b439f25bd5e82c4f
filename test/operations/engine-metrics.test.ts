import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmscSimulator, type SmscSimulator } from '../../src/carriers/smpp/smsc/index.js';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { api } from '../helpers/process.js';
import { sample } from '../helpers/prometheus.js';
import { until } from '../helpers/until.js';

const ADMIN = 'engine-metrics-admin';
const KEY = 'engine-metrics-key';
const logger = pino({ level: 'silent' });

/**
 * What the engine thread counts reaches the API thread's /metrics: a message sent through an
 * SMSC with receipts and webhooks shows up in every engine-fed series of decisions §12.
 */
describe.each(ENGINES)('engine metrics of a real server on %s', (engineName) => {
  let db: TestDatabase;
  let smsc: SmscSimulator;
  let server: RunningServer;
  let receiver: Server;
  let callbacks = 0;
  let origin: string;

  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    smsc = await createSmscSimulator({ receiptDelayMs: 20, logger });
    receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        callbacks += 1;
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const config = loadConfig({
      SMSGW_DATABASE_URL: db.url,
      SMSGW_PORT: '0',
      SMSGW_ADMIN_TOKEN: ADMIN,
      SMSGW_CARRIER: 'smpp',
      SMSGW_WEBHOOK_ALLOW_PRIVATE: 'true',
      SMSGW_LOG_LEVEL: 'silent',
      SMSGW_BOOTSTRAP_KEY: KEY,
    });
    server = await startServer(config, logger);
    origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    const admin = (path: string, body: unknown) => api(origin, ADMIN, 'POST', `/admin/v1${path}`, body);
    expect(
      (
        await admin('/connectors', {
          name: 'primary',
          host: '127.0.0.1',
          port: smsc.port,
          system_id: 'smsgw',
          password: 'secret',
        })
      ).status,
    ).toBe(201);
    expect((await admin('/routes', { prefix: '+61', connector: 'primary' })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.stop();
    await smsc?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await db?.drop();
  });

  const scrape = async () => (await fetch(`${origin}/metrics`)).text();

  it('shows binds, submits, receipts, status moves, webhook attempts and inbound messages', async () => {
    const bound = await until(
      scrape,
      (t) => sample(t, 'smsgw_connector_binds', { connector: 'primary' }) === 1,
    );
    expect(sample(bound, 'smsgw_connector_binds', { connector: 'primary' })).toBe(1);

    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const sent = await api(origin, KEY, 'POST', '/v1/sms/message', {
      to: ['+61400000001', '+61400000002'],
      from: 'Acme',
      body: 'counted',
      callbackURL: receiverUrl,
      delivery_report: 'per_recipient_final',
    });
    expect(sent.status).toBe(201);
    const text = await until(
      scrape,
      (t) =>
        sample(t, 'smsgw_webhook_attempts_total', { kind: 'delivery_report', outcome: 'accepted' }) === 2 &&
        sample(t, 'smsgw_recipients_total', { status: 'delivered' }) === 2,
    );
    expect(callbacks).toBe(2);
    // Accepted due now on the API thread; sent and delivered by the engine thread.
    expect(sample(text, 'smsgw_recipients_total', { status: 'submitted' })).toBe(2);
    expect(sample(text, 'smsgw_recipients_total', { status: 'sent' })).toBe(2);
    expect(sample(text, 'smsgw_recipients_total', { status: 'delivered' })).toBe(2);
    expect(sample(text, 'smsgw_recipients_total', { status: 'failed' })).toBe(0);
    expect(sample(text, 'smsgw_submit_duration_seconds_count', { connector: 'primary' })).toBe(2);
    expect(sample(text, 'smsgw_receipts_total', { connector: 'primary', matched: 'true' })).toBe(2);
    expect(sample(text, 'smsgw_connector_in_flight', { connector: 'primary' })).toBe(0);
    expect(sample(text, 'smsgw_webhook_attempts_total', { kind: 'delivery_report', outcome: 'retry' })).toBe(
      0,
    );
    expect(sample(text, 'smsgw_queue_recipients', { status: 'submitted' })).toBe(0);

    expect(await smsc.injectMo('+61400000009', '+61400000100', 'hello')).toBe(true);
    const after = await until(scrape, (t) => sample(t, 'smsgw_inbound_total') === 1);
    expect(sample(after, 'smsgw_inbound_total')).toBe(1);
  });

  it('counts a cancel on the API thread and a scheduled release on the engine thread', async () => {
    const later = new Date(Date.now() + 60 * 60_000).toISOString();
    const scheduled = await api(origin, KEY, 'POST', '/v1/sms/message', {
      to: ['+61400000003'],
      from: 'Acme',
      body: 'later',
      send_at: later,
    });
    expect(scheduled.status).toBe(201);
    const before = await scrape();
    const pending = sample(before, 'smsgw_recipients_total', { status: 'pending' })!;
    const cancelled = sample(before, 'smsgw_recipients_total', { status: 'cancelled' })!;
    expect(pending).toBeGreaterThanOrEqual(1);
    const id = scheduled.body.messageID as number;
    expect((await api(origin, KEY, 'DELETE', `/v1/sms/message/${id}`)).status).toBe(200);
    const text = await scrape();
    expect(sample(text, 'smsgw_recipients_total', { status: 'cancelled' })).toBe(cancelled + 1);
  });
});
