import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildApp, type App } from '../../src/http/app.js';
import type { MetricSnapshot } from '../../src/metrics/families.js';
import { createMetrics, type Metrics } from '../../src/metrics/metrics.js';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createAccount } from '../../src/app/accounts.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { sample } from '../helpers/prometheus.js';

describe.each(ENGINES)('GET /metrics on %s', (engine) => {
  let db: TestDatabase;
  let app: App;
  let metrics: Metrics;
  let key: string;
  let store: Store;
  const now = Date.parse('2026-11-21T12:00:00.000Z');
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    store = createStore(db.conn);
    const logger = pino({ level: 'silent' });
    metrics = createMetrics({ queueDepth: (at) => store.operations.queueDepth(at), now: () => now, logger });
    app = await buildApp({
      config: loadConfig({ SMSGW_LOG_LEVEL: 'silent' }),
      store,
      logger,
      now: () => now,
      metrics,
    });
    key = (await createAccount(store, { name: 'metrics', anySender: true }, now)).key.apiKey;
  });
  afterAll(async () => {
    await app.close();
    await db.drop();
  });
  const scrape = async () => {
    const r = await app.inject({ method: 'GET', url: '/metrics' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toContain('text/plain');
    return r.body;
  };
  const send = (body: unknown) =>
    app.inject({
      method: 'POST',
      url: '/v1/sms/message',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  it('counts requests by method, route pattern and status, never by raw path', async () => {
    const auth = { authorization: `Bearer ${key}` };
    await app.inject({ method: 'GET', url: '/v1/sms/message/123456', headers: auth });
    await app.inject({ method: 'GET', url: '/v1/sms/message/987654', headers: auth });
    await app.inject({ method: 'GET', url: '/v1/no/such/path/555' });
    const text = await scrape();
    expect(
      sample(text, 'smsgw_http_requests_total', {
        method: 'GET',
        route: '/v1/sms/message/:messageID',
        status: '404',
      }),
    ).toBe(2);
    expect(
      sample(text, 'smsgw_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(1);
    expect(text).not.toContain('123456');
    expect(text).not.toContain('/v1/no/such');
    expect(
      sample(text, 'smsgw_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/v1/sms/message/:messageID',
      }),
    ).toBe(2);
    expect(
      sample(text, 'smsgw_http_request_duration_seconds_bucket', {
        method: 'GET',
        route: '/v1/sms/message/:messageID',
        le: '+Inf',
      }),
    ).toBe(2);
  });

  it('serves the default process and event-loop metrics', async () => {
    const text = await scrape();
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(sample(text, name), name).toBeGreaterThanOrEqual(0);
    }
  });

  it('reads the queue gauges from the store at each scrape', async () => {
    expect(sample(await scrape(), 'smsgw_queue_recipients', { status: 'pending' })).toBe(0);
    // No engine runs here: a paused message stays pending, one due at once stays submitted.
    expect(
      (
        await send({
          to: ['+61491570001', '+61491570002', '+61491570003'],
          from: 'Acme',
          body: 'a',
          paused: true,
        })
      ).statusCode,
    ).toBe(201);
    expect((await send({ to: ['+61491570004', '+61491570005'], from: 'Acme', body: 'b' })).statusCode).toBe(
      201,
    );
    const account = await db.conn.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
    const delivery = {
      account_id: account.id,
      kind: 'delivery_report',
      message_id: 1,
      url: 'http://127.0.0.1:9/hook',
      origin: 'http://127.0.0.1:9',
      payload: '{}',
      created_at: now,
    };
    await db.conn.db
      .insertInto('webhook_deliveries')
      .values([
        { ...delivery, webhook_id: 'msg_a', state: 'pending', next_attempt_at: now - 30_000 },
        { ...delivery, webhook_id: 'msg_b', state: 'pending', next_attempt_at: now - 5_000 },
        { ...delivery, webhook_id: 'msg_c', state: 'pending', next_attempt_at: now + 60_000 },
        {
          ...delivery,
          webhook_id: 'msg_d',
          state: 'delivered',
          next_attempt_at: now - 90_000,
          completed_at: now,
        },
      ])
      .execute();
    const text = await scrape();
    expect(sample(text, 'smsgw_queue_recipients', { status: 'pending' })).toBe(3);
    expect(sample(text, 'smsgw_queue_recipients', { status: 'submitted' })).toBe(2);
    expect(sample(text, 'smsgw_webhook_queue', { state: 'due' })).toBe(2);
    expect(sample(text, 'smsgw_webhook_queue', { state: 'scheduled' })).toBe(1);
    expect(sample(text, 'smsgw_webhook_lag_seconds')).toBe(30);
    // The dashboard reads the same queue.
    expect(await store.stats.queueDepth()).toMatchObject({ open: 5, submitted: 2, awaitingReceipt: 0 });

    // Accepted by the SMSC, a recipient waits for its receipt: neither pending nor submitted.
    await db.conn.db
      .updateTable('recipients')
      .set({ status: 'sent' })
      .where('msisdn', '=', '+61491570004')
      .execute();
    const later = await scrape();
    expect(sample(later, 'smsgw_queue_recipients', { status: 'pending' })).toBe(3);
    expect(sample(later, 'smsgw_queue_recipients', { status: 'submitted' })).toBe(1);
  });

  it("sums another thread's engine metrics into the scrape", async () => {
    const worker = new Worker(
      `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./fixtures/metrics-thread.ts', import.meta.url).href)}); })`,
      { eval: true },
    );
    try {
      await new Promise((resolve) => worker.once('message', resolve));
      metrics.addThread(
        () =>
          new Promise<MetricSnapshot[]>((resolve) => {
            worker.once('message', resolve);
            worker.postMessage('snapshot');
          }),
      );
      // This thread counts too (an engine on this thread, the webhook runner): the two add up.
      metrics.engine.recipientsEntered('delivered', 2);
      metrics.engine.receiptsReceived('telco', true);
      const text = await scrape();
      expect(sample(text, 'smsgw_recipients_total', { status: 'submitted' })).toBe(7);
      expect(sample(text, 'smsgw_recipients_total', { status: 'delivered' })).toBe(5);
      expect(sample(text, 'smsgw_recipients_total', { status: 'failed' })).toBe(0);
      expect(sample(text, 'smsgw_receipts_total', { connector: 'telco', matched: 'true' })).toBe(4);
      expect(sample(text, 'smsgw_receipts_total', { connector: 'telco', matched: 'false' })).toBe(1);
      expect(sample(text, 'smsgw_submit_duration_seconds_count', { connector: 'telco' })).toBe(2);
      expect(sample(text, 'smsgw_submit_duration_seconds_bucket', { connector: 'telco', le: '0.005' })).toBe(
        1,
      );
      expect(sample(text, 'smsgw_submit_duration_seconds_bucket', { connector: 'telco', le: '0.25' })).toBe(
        2,
      );
      expect(sample(text, 'smsgw_submit_duration_seconds_sum', { connector: 'telco' })).toBeCloseTo(0.204);
      expect(sample(text, 'smsgw_connector_binds', { connector: 'telco' })).toBe(2);
      expect(sample(text, 'smsgw_connector_in_flight', { connector: 'telco' })).toBe(5);
      expect(
        sample(text, 'smsgw_webhook_attempts_total', { kind: 'delivery_report', outcome: 'retry' }),
      ).toBe(2);
      expect(sample(text, 'smsgw_webhook_attempts_total', { kind: 'inbound', outcome: 'gave_up' })).toBe(0);
      expect(sample(text, 'smsgw_inbound_total')).toBe(1);
      // The process metrics pass through the merge once, unchanged in kind.
      expect(sample(text, 'process_start_time_seconds')).toBeGreaterThan(0);
      expect(text.match(/^# TYPE smsgw_recipients_total counter$/gm)).toHaveLength(1);
    } finally {
      await worker.terminate();
    }
  });
});

describe('GET /metrics with SMSGW_METRICS_TOKEN', () => {
  it('needs the token as a bearer token', async () => {
    const db = await createTestDatabase('sqlite');
    const app = await buildApp({
      config: loadConfig({ SMSGW_LOG_LEVEL: 'silent', SMSGW_METRICS_TOKEN: 'scrape-me' }),
      store: createStore(db.conn),
      logger: pino({ level: 'silent' }),
      now: () => Date.now(),
    });
    try {
      for (const authorization of [undefined, 'Bearer wrong', 'Bearer scrape-mee']) {
        const r = await app.inject({
          method: 'GET',
          url: '/metrics',
          headers: authorization ? { authorization } : {},
        });
        expect(r.statusCode).toBe(401);
        expect(r.json()).toEqual({ status_code: 401, status_msg: 'Unauthorized' });
      }
      const ok = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer scrape-me' },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain('# TYPE smsgw_http_requests_total counter');
      // The probes stay open: a load balancer has no token.
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await db.drop();
    }
  });
});
