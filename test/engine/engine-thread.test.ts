import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmscSimulator, type SmscSimulator } from '../../src/carriers/smpp/smsc/index.js';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { api } from '../helpers/process.js';
import { until } from '../helpers/until.js';

const ADMIN = 'engine-thread-admin';
const logger = pino({ level: 'silent' });

/**
 * The real server runs its engine in a thread of its own: admin changes to routing, connector
 * state and wake-ups for new messages all cross that boundary.
 */
describe.each(ENGINES)('the engine thread of a real server on %s', (engineName) => {
  let db: TestDatabase;
  let smsc: SmscSimulator;
  let server: RunningServer;
  let origin: string;

  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    smsc = await createSmscSimulator({ receiptDelayMs: 50, logger });
    const config = loadConfig({
      SMSGW_DATABASE_URL: db.url,
      SMSGW_PORT: '0',
      SMSGW_ADMIN_TOKEN: ADMIN,
      SMSGW_CARRIER: 'smpp',
      SMSGW_LOG_LEVEL: 'silent',
      SMSGW_BOOTSTRAP_KEY: 'engine-thread-key',
    });
    server = await startServer(config, logger);
    origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await server?.stop();
    await smsc?.close();
    await db?.drop();
  });

  const admin = (method: string, path: string, body?: unknown) =>
    api(origin, ADMIN, method, `/admin/v1${path}`, body);
  const bound = (state: unknown) => (state as { bound?: boolean } | null)?.bound === true;

  it('binds a connector added through the admin API and shows its live state', async () => {
    const created = await admin('POST', '/connectors', {
      name: 'primary',
      host: '127.0.0.1',
      port: smsc.port,
      system_id: 'smsgw',
      password: 'secret',
    });
    expect(created.status).toBe(201);
    expect((await admin('POST', '/routes', { prefix: '+61', connector: 'primary' })).status).toBe(201);
    const read = await until(
      () => admin('GET', '/connectors/primary'),
      (r) => bound(r.body.state),
    );
    expect(read.body.state).toMatchObject({ bound: true, inFlight: 0 });
    const list = await admin('GET', '/connectors');
    expect((list.body.connectors as { state: unknown }[]).map((c) => bound(c.state))).toEqual([true]);
  });

  it('sends an accepted message through the SMSC and records its receipt', async () => {
    const sent = await api(origin, 'engine-thread-key', 'POST', '/v1/sms/message', {
      to: ['+61400000001', '+61400000002'],
      from: 'Acme',
      body: 'Sent from the engine thread',
    });
    expect(sent.status).toBe(201);
    const status = await until(
      () =>
        api(origin, 'engine-thread-key', 'GET', `/v1/sms/message/${sent.body.messageID as number}/status`),
      (r) => Object.values(r.body.to).every((s) => s === 'delivered'),
    );
    expect(status.body.to).toEqual({ '+61400000001': 'delivered', '+61400000002': 'delivered' });
    expect(smsc.stats.submitCount('+61400000001')).toBe(1);
  });
});

describe('a server on an in-memory SQLite database', () => {
  let server: RunningServer;

  beforeAll(async () => {
    const config = loadConfig({
      SMSGW_DATABASE_URL: 'sqlite::memory:',
      SMSGW_PORT: '0',
      SMSGW_SIM_DELAY_MS: '10',
      SMSGW_LOG_LEVEL: 'silent',
      SMSGW_BOOTSTRAP_KEY: 'in-memory-key',
    });
    server = await startServer(config, logger);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('sends on the API thread, since no other connection can see the database', async () => {
    const origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    const sent = await api(origin, 'in-memory-key', 'POST', '/v1/sms/message', {
      to: ['+61400000001'],
      from: 'Acme',
      body: 'hello',
    });
    expect(sent.status).toBe(201);
    const status = await until(
      () => api(origin, 'in-memory-key', 'GET', `/v1/sms/message/${sent.body.messageID as number}/status`),
      (r) => r.body.to['+61400000001'] === 'delivered',
    );
    expect(status.body.to).toEqual({ '+61400000001': 'delivered' });
  });
});
