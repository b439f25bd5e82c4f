import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { api } from '../helpers/process.js';
import { until } from '../helpers/until.js';

const ADMIN = 'endpoints-admin';
const KEY = 'endpoints-key';
const logger = pino({ level: 'silent' });
/** Five failures in a row open the circuit; on a busy machine that can take a while. */
const WAIT_MS = 20_000;

/**
 * Issue 15's breaker, as an operator sees it: a receiver that keeps failing is paused, and
 * GET /admin/v1/webhooks/endpoints says so; a healthy one is shown closed.
 */
describe('webhook endpoints in the admin API', () => {
  let db: TestDatabase;
  let server: RunningServer;
  let failing: Server;
  let healthy: Server;
  let origin: string;
  let healthyReports = 0;
  const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    const listen = async (status: number) => {
      const s = createServer((request, response) => {
        request.resume();
        request.on('end', () => {
          if (status === 200) healthyReports += 1;
          response.writeHead(status).end();
        });
      });
      await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
      return s;
    };
    failing = await listen(503);
    healthy = await listen(200);
    server = await startServer(
      loadConfig({
        SMSGW_DATABASE_URL: db.url,
        SMSGW_PORT: '0',
        SMSGW_ADMIN_TOKEN: ADMIN,
        SMSGW_BOOTSTRAP_KEY: KEY,
        SMSGW_SIM_DELAY_MS: '10',
        SMSGW_WEBHOOK_RETRY: '1h',
        SMSGW_LOG_LEVEL: 'silent',
      }),
      logger,
    );
    origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => failing?.close(resolve));
    await new Promise((resolve) => healthy?.close(resolve));
    await db?.drop();
  });

  it('needs the admin token', async () => {
    expect((await api(origin, KEY, 'GET', '/admin/v1/webhooks/endpoints')).status).toBe(401);
  });

  it('shows a receiver that keeps failing as open, with its failures; a healthy one is not held up', async () => {
    const send = (callbackURL: string, to: string) =>
      api(`${origin}/v1`, KEY, 'POST', '/sms/message', {
        from: 'Acme',
        to: [to],
        body: 'hi',
        callbackURL,
        delivery_report: 'per_recipient',
      });
    // Each recipient reports submitted, sent and delivered: two of them fail five times in a row.
    for (const to of ['+61491570150', '+61491570151'])
      expect((await send(`${urlOf(failing)}/dlr`, to)).status).toBe(201);
    expect((await send(`${urlOf(healthy)}/dlr`, '+61491570152')).status).toBe(201);

    type Endpoints = {
      endpoints: {
        origin: string;
        circuit: string;
        consecutive_failures: number;
        reopens_at: string | null;
      }[];
    };
    const list = async () =>
      (await api(origin, ADMIN, 'GET', '/admin/v1/webhooks/endpoints')).body as unknown as Endpoints;
    const seen = await until(
      list,
      (b) => b.endpoints.some((e) => e.origin === urlOf(failing) && e.circuit === 'open'),
      WAIT_MS,
    );
    const bad = seen.endpoints.find((e) => e.origin === urlOf(failing));
    expect(bad).toMatchObject({ circuit: 'open', consecutive_failures: expect.any(Number) });
    expect(bad!.consecutive_failures).toBeGreaterThanOrEqual(5);
    expect(Date.parse(bad!.reopens_at!)).toBeGreaterThan(Date.now() - 1_000);
    // The healthy receiver got its three reports; once nothing waits for it, it is not listed
    // (only receivers with deliveries in hand or a paused circuit are).
    await until(
      async () => healthyReports,
      (n) => n === 3,
      WAIT_MS,
    );
    expect(healthyReports).toBe(3);
    const after = await until(list, (b) => !b.endpoints.some((e) => e.origin === urlOf(healthy)), WAIT_MS);
    expect(after.endpoints.map((e) => e.origin)).toEqual([urlOf(failing)]);
  });
});
