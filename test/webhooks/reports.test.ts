import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';

/**
 * Delivery reports end to end: the real server (engine, simulator, report sink, delivery runner)
 * POSTing to a real HTTP receiver on loopback.
 */

const ADMIN = 'reports-admin-token';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads are checked field by field
  readonly json: any;
}

interface Receiver {
  readonly url: string;
  readonly received: Received[];
  close(): Promise<void>;
}

async function receiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      received.push({ headers: req.headers, body, json: JSON.parse(body) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until<T>(
  probe: () => T | Promise<T>,
  check: (v: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ALL_ZERO = {
  pending: 0,
  submitted: 0,
  sent: 0,
  delivered: 0,
  cancelled: 0,
  expired: 0,
  aborted: 0,
  rejected: 0,
  failed: 0,
  deleted: 0,
  unknown: 0,
};

describe.each(ENGINES)('delivery report webhooks on %s', (engineName) => {
  let db: TestDatabase;
  let server: RunningServer;
  let origin: string;
  let names = 0;

  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    const config = loadConfig({
      SMSGW_DATABASE_URL: db.url,
      SMSGW_PORT: '0',
      SMSGW_ADMIN_TOKEN: ADMIN,
      SMSGW_SIM_DELAY_MS: '50',
      SMSGW_LOG_LEVEL: 'silent',
      SMSGW_WEBHOOK_RETRY: '100ms,100ms,100ms',
    });
    server = await startServer(config, pino({ level: 'silent' }));
    origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await server.stop();
    await db.drop();
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

  async function account(settings: Record<string, unknown>) {
    const r = await http('POST', '/admin/v1/accounts', ADMIN, {
      name: `reports-${++names}`,
      any_sender: true,
      ...settings,
    });
    expect(r.status).toBe(201);
    return {
      id: r.body.accountID as number,
      key: r.body.api_key as string,
      secret: r.body.webhook_secret as string,
    };
  }

  async function send(key: string, body: Record<string, unknown>): Promise<number> {
    const r = await http('POST', '/v1/sms/message', key, { from: 'Acme', body: 'Hello', ...body });
    expect(r.status).toBe(201);
    return r.body.messageID as number;
  }

  const meta = async (key: string, id: number) =>
    (await http('GET', `/v1/sms/message/${id}/meta,status`, key)).body;
  const completed = (key: string, id: number) =>
    until(
      () => meta(key, id),
      (m) => m.complete_at !== null,
    );
  const deliveriesOf = (messageId: number) =>
    db.conn.db.selectFrom('webhook_deliveries').selectAll().where('message_id', '=', messageId).execute();

  it('summary: once, at completion, with all eleven counts, signed', async () => {
    const hook = await receiver();
    try {
      const { key, secret } = await account({ callback_url: hook.url, delivery_report: 'summary' });
      const to = Array.from({ length: 10 }, (_, d) => `+6149157015${d}`);
      const id = await send(key, { to, ref: 'order-7' });
      const m = await completed(key, id);
      await until(
        () => hook.received.length,
        (n) => n >= 1,
      );
      await sleep(400);
      expect(hook.received).toHaveLength(1);
      const [report] = hook.received;
      expect(report!.json).toEqual({
        tstamp: m.complete_at,
        message_type: 'sms',
        ref: 'order-7',
        messageID: id,
        balance_used: 9,
        statuses: { ...ALL_ZERO, delivered: 5, expired: 1, rejected: 1, failed: 1, deleted: 1, unknown: 1 },
        callback_type: 'summary_delivery_report',
      });
      expect(Object.keys(report!.json.statuses)).toHaveLength(11);
      // Standard Webhooks: any implementation verifies it with the account's secret.
      expect(new Webhook(secret).verify(report!.body, report!.headers as Record<string, string>)).toEqual(
        report!.json,
      );
      expect(report!.headers['content-type']).toBe('application/json');
      expect(report!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    } finally {
      await hook.close();
    }
  });

  it('detailed: statuses keyed by code, only codes some recipient holds', async () => {
    const hook = await receiver();
    try {
      const { key } = await account({ callback_url: hook.url, delivery_report: 'detailed' });
      const to = ['+61491570150', '+61491570151', '+61491570155', '+61491570156', '+61491570159'];
      const id = await send(key, { to });
      const m = await completed(key, id);
      await until(
        () => hook.received.length,
        (n) => n >= 1,
      );
      await sleep(400);
      expect(hook.received).toHaveLength(1);
      expect(hook.received[0]!.json).toEqual({
        tstamp: m.complete_at,
        message_type: 'sms',
        ref: null,
        messageID: id,
        balance_used: 4,
        statuses: {
          '200': { status: 'delivered', recipients: ['+61491570150', '+61491570151'] },
          '430': { status: 'rejected', recipients: ['+61491570156'] },
          '440': { status: 'failed', recipients: ['+61491570155'] },
          '500': { status: 'unknown', recipients: ['+61491570159'] },
        },
        callback_type: 'summary_delivery_report',
      });
    } finally {
      await hook.close();
    }
  });

  it('per_recipient_final: once per recipient at its final status, with its share of balance_used', async () => {
    const hook = await receiver();
    try {
      const { key } = await account({ callback_url: hook.url, delivery_report: 'per_recipient_final' });
      // 200 GSM-7 characters: two parts, so a recipient that reached the carrier used 2.
      const id = await send(key, {
        to: ['+61491570150', '+61491570155', '+61491570156'],
        body: 'x'.repeat(200),
        ref: 'multi',
      });
      await completed(key, id);
      await until(
        () => hook.received.length,
        (n) => n >= 3,
      );
      await sleep(400);
      expect(hook.received).toHaveLength(3);
      const byRecipient = Object.fromEntries(hook.received.map((r) => [r.json.recipients, r.json]));
      const common = {
        message_type: 'sms',
        ref: 'multi',
        messageID: id,
        callback_type: 'recipient_delivery_report',
      };
      expect(byRecipient['+61491570150']).toEqual({
        ...common,
        tstamp: expect.any(String),
        balance_used: 2,
        status: 'delivered',
        status_code: 200,
        recipients: '+61491570150',
      });
      expect(byRecipient['+61491570155']).toMatchObject({
        status: 'failed',
        status_code: 440,
        balance_used: 2,
      });
      // Refused at submit: never reached the carrier, so nothing was used.
      expect(byRecipient['+61491570156']).toMatchObject({
        status: 'rejected',
        status_code: 430,
        balance_used: 0,
      });
      for (const r of hook.received)
        expect(r.json.tstamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      // Three deliveries, three different webhook-ids.
      expect(new Set(hook.received.map((r) => r.headers['webhook-id'])).size).toBe(3);
    } finally {
      await hook.close();
    }
  });

  it('per_recipient: submitted, sent and the final status of each recipient; cancelled too', async () => {
    const hook = await receiver();
    try {
      const { key } = await account({ callback_url: hook.url, delivery_report: 'per_recipient' });
      const id = await send(key, { to: ['+61491570150', '+61491570156'] });
      await completed(key, id);
      await until(
        () => hook.received.length,
        (n) => n >= 5,
      );
      await sleep(400);
      const seen = (msisdn: string) =>
        hook.received
          .map((r) => r.json)
          .filter((j) => j.recipients === msisdn)
          .sort((a, b) => a.tstamp.localeCompare(b.tstamp))
          .map((j) => [j.status, j.status_code, j.balance_used]);
      expect(seen('+61491570150')).toEqual([
        ['submitted', 110, 0],
        ['sent', 120, 1],
        ['delivered', 200, 1],
      ]);
      expect(seen('+61491570156')).toEqual([
        ['submitted', 110, 0],
        ['rejected', 430, 0],
      ]);
      expect(hook.received.every((r) => r.json.callback_type === 'recipient_delivery_report')).toBe(true);

      // A paused message cancelled by the client: pending → cancelled is a change too.
      const paused = await send(key, { to: ['+61491570151'], paused: true });
      expect((await http('DELETE', `/v1/sms/message/${paused}`, key)).status).toBe(200);
      const cancelled = await until(
        () => hook.received.filter((r) => r.json.messageID === paused),
        (list) => list.length >= 1,
      );
      expect(cancelled.map((r) => [r.json.status, r.json.status_code, r.json.balance_used])).toEqual([
        ['cancelled', 400, 0],
      ]);
    } finally {
      await hook.close();
    }
  });

  it("goes to the message's callbackURL, else the account's callback_url", async () => {
    const accountHook = await receiver();
    const messageHook = await receiver();
    try {
      const { key } = await account({ callback_url: accountHook.url, delivery_report: 'summary' });
      const own = await send(key, { to: ['+61491570150'], callbackURL: messageHook.url });
      const dflt = await send(key, { to: ['+61491570151'] });
      await completed(key, own);
      await completed(key, dflt);
      await until(
        () => accountHook.received.length + messageHook.received.length,
        (n) => n >= 2,
      );
      await sleep(300);
      expect(messageHook.received.map((r) => r.json.messageID)).toEqual([own]);
      expect(accountHook.received.map((r) => r.json.messageID)).toEqual([dflt]);
    } finally {
      await accountHook.close();
      await messageHook.close();
    }
  });

  it('sends nothing for delivery_report null, or when there is no URL', async () => {
    const hook = await receiver();
    try {
      const { key } = await account({ callback_url: hook.url, delivery_report: 'per_recipient' });
      const off = await send(key, { to: ['+61491570150'], delivery_report: null });
      const { key: noUrlKey } = await account({ delivery_report: 'per_recipient' });
      const noUrl = await send(noUrlKey, { to: ['+61491570151'] });
      const { key: noTypeKey } = await account({ callback_url: hook.url });
      const noType = await send(noTypeKey, { to: ['+61491570152'] });
      await completed(key, off);
      await completed(noUrlKey, noUrl);
      await completed(noTypeKey, noType);
      await sleep(400);
      expect(hook.received).toHaveLength(0);
      for (const id of [off, noUrl, noType]) expect(await deliveriesOf(id)).toHaveLength(0);
    } finally {
      await hook.close();
    }
  });

  it('keeps the exact body it queued: the row holds what the receiver got', async () => {
    const hook = await receiver();
    try {
      const { key } = await account({ callback_url: hook.url, delivery_report: 'summary' });
      const id = await send(key, { to: ['+61491570153'] });
      await completed(key, id);
      await until(
        () => hook.received.length,
        (n) => n >= 1,
      );
      const [row] = await until(
        () => deliveriesOf(id),
        (rows) => rows[0]?.state === 'delivered',
      );
      expect(row!.payload).toBe(hook.received[0]!.body);
      expect(row!.webhook_id).toBe(hook.received[0]!.headers['webhook-id']);
      expect(row!.kind).toBe('delivery_report');
      expect(row!.attempts).toBe(1);
    } finally {
      await hook.close();
    }
  });
});
