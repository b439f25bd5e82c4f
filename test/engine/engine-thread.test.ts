import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmscSimulator, type SmscSimulator } from '../../src/carriers/smpp/smsc/index.js';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';

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

  async function http(method: string, path: string, token: string, body?: unknown) {
    const r = await fetch(`${origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
    return { status: r.status, body: (await r.json()) as any };
  }

  async function until<T>(probe: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const value = await probe();
      if (check(value) || Date.now() > deadline) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('binds a connector added through the admin API and shows its live state', async () => {
    const created = await http('POST', '/admin/v1/connectors', ADMIN, {
      name: 'primary',
      host: '127.0.0.1',
      port: smsc.port,
      system_id: 'smsgw',
      password: 'secret',
    });
    expect(created.status).toBe(201);
    expect(
      (await http('POST', '/admin/v1/routes', ADMIN, { prefix: '+61', connector: 'primary' })).status,
    ).toBe(201);
    const read = await until(
      () => http('GET', '/admin/v1/connectors/primary', ADMIN),
      (r) => r.body.state?.bound === true,
    );
    expect(read.body.state).toMatchObject({ bound: true, inFlight: 0 });
    const list = await http('GET', '/admin/v1/connectors', ADMIN);
    expect(list.body.connectors.map((c: { state: { bound: boolean } }) => c.state.bound)).toEqual([true]);
  });

  it('sends an accepted message through the SMSC and records its receipt', async () => {
    const sent = await http('POST', '/v1/sms/message', 'engine-thread-key', {
      to: ['+61400000001', '+61400000002'],
      from: 'Acme',
      body: 'Sent from the engine thread',
    });
    expect(sent.status).toBe(201);
    const status = await until(
      () => http('GET', `/v1/sms/message/${sent.body.messageID}/status`, 'engine-thread-key'),
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
    const headers = { authorization: 'Bearer in-memory-key', 'content-type': 'application/json' };
    const sent = await fetch(`${origin}/v1/sms/message`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ to: ['+61400000001'], from: 'Acme', body: 'hello' }),
    });
    expect(sent.status).toBe(201);
    const { messageID } = (await sent.json()) as { messageID: number };
    let to: Record<string, string> = {};
    for (let i = 0; i < 200 && to['+61400000001'] !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const r = await fetch(`${origin}/v1/sms/message/${messageID}/status`, { headers });
      to = ((await r.json()) as { to: Record<string, string> }).to;
    }
    expect(to).toEqual({ '+61400000001': 'delivered' });
  });
});
