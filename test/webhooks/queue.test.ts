import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createInboundSink } from '../../src/webhooks/report-sink.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';

/**
 * The webhook queue end to end: retries, giving up, the attempt log, replay, signing, per-origin
 * isolation and durability across a restart, against real HTTP receivers on loopback.
 */

const ADMIN = 'queue-admin-token';

interface Received {
  readonly at: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads are checked field by field
  readonly json: any;
}

/** How to answer the nth request (0-based): a status, with headers, or never. */
type Answer = number | { status: number; headers?: Record<string, string>; body?: string } | 'hang';

interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Requests open right now, and the most ever open at once. */
  readonly open: number;
  readonly maxOpen: number;
  answer: (n: number, json: unknown) => Answer;
  close(): Promise<void>;
}

async function receiver(answer: Receiver['answer'] = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  let open = 0;
  let maxOpen = 0;
  const server = createServer((req, res) => {
    open += 1;
    maxOpen = Math.max(maxOpen, open);
    res.on('close', () => (open -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const json: unknown = JSON.parse(body);
      const n = received.length;
      received.push({ at: Date.now(), headers: req.headers, body, json });
      const a = self.answer(n, json);
      if (a === 'hang') return void hanging.push(res);
      const { status, headers = {}, body: text = `answer ${n}` } = typeof a === 'number' ? { status: a } : a;
      res.writeHead(status, headers).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const self: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    get open() {
      return open;
    },
    get maxOpen() {
      return maxOpen;
    },
    answer,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return self;
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

describe.each(ENGINES)('webhook queue on %s', (engineName) => {
  let db: TestDatabase;
  let server: RunningServer;
  let origin: string;
  let names = 0;

  const start = async (env: Record<string, string> = {}, on: TestDatabase = db) => {
    const config = loadConfig({
      SMSGW_DATABASE_URL: on.url,
      SMSGW_PORT: '0',
      SMSGW_ADMIN_TOKEN: ADMIN,
      SMSGW_SIM_DELAY_MS: '20',
      SMSGW_LOG_LEVEL: 'silent',
      SMSGW_WEBHOOK_RETRY: '100ms,100ms,100ms',
      SMSGW_WEBHOOK_TIMEOUT_MS: '1000',
      ...env,
    });
    const s = await startServer(config, pino({ level: 'silent' }));
    return { server: s, origin: `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}` };
  };

  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    ({ server, origin } = await start());
  });
  afterAll(async () => {
    await server.stop();
    await db.drop();
  });

  /**
   * A server on a database of its own: servers sharing a database share its queue (as nodes
   * do), so a test of one server's schedule or restart must not have another beside it.
   */
  const isolated = async (env: Record<string, string>) => {
    const own = await createTestDatabase(engineName);
    return { db: own, start: () => start(env, own) };
  };

  async function http(method: string, path: string, token: string | null, body?: unknown, at = origin) {
    const r = await fetch(`${at}${path}`, {
      method,
      headers: {
        ...(token !== null && { authorization: `Bearer ${token}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
    const json: any = text === '' ? undefined : JSON.parse(text);
    return { status: r.status, headers: r.headers, body: json };
  }

  async function account(settings: Record<string, unknown>, at = origin) {
    const r = await http(
      'POST',
      '/admin/v1/accounts',
      ADMIN,
      {
        name: `queue-${engineName}-${++names}`,
        any_sender: true,
        delivery_report: 'per_recipient_final',
        ...settings,
      },
      at,
    );
    expect(r.status).toBe(201);
    return {
      id: r.body.accountID as number,
      key: r.body.api_key as string,
      secret: r.body.webhook_secret as string,
    };
  }

  async function send(key: string, to: string[], at = origin): Promise<number> {
    const r = await http('POST', '/v1/sms/message', key, { from: 'Acme', body: 'Hello', to }, at);
    expect(r.status).toBe(201);
    return r.body.messageID as number;
  }

  const listing = async (query: string) => {
    const r = await http('GET', `/admin/v1/webhooks?${query}`, ADMIN);
    expect(r.status).toBe(200);
    return r.body as { data: Record<string, unknown>[]; more_results: boolean };
  };
  /** The message's only delivery; state 'none' until it is queued. */
  const deliveryOf = async (messageId: number) =>
    (await listing(`messageID=${messageId}`)).data[0] ?? { state: 'none' };

  it('retries 500, 500 then accepts 200: three attempts, one webhook-id, all in the log', async () => {
    const hook = await receiver((n) => (n < 2 ? 500 : 200));
    try {
      const { key } = await account({ callback_url: hook.url });
      const id = await send(key, ['+61491570150']);
      await until(
        () => hook.received.length,
        (n) => n >= 3,
      );
      await sleep(300);
      expect(hook.received).toHaveLength(3);
      expect(new Set(hook.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
      // Each retry waits its turn on the schedule (100 ms, jittered by at most 10%).
      expect(hook.received[1]!.at - hook.received[0]!.at).toBeGreaterThanOrEqual(85);
      const d = await until(
        () => deliveryOf(id),
        (v) => v.state === 'delivered',
      );
      expect(d).toMatchObject({
        webhook_id: hook.received[0]!.headers['webhook-id'],
        kind: 'delivery_report',
        messageID: id,
        url: hook.url,
        state: 'delivered',
        next_attempt_at: null,
      });
      const attempts = d.attempts as Record<string, unknown>[];
      expect(attempts.map((a) => a.status)).toEqual([500, 500, 200]);
      expect(attempts.map((a) => a.response_excerpt)).toEqual(['answer 0', 'answer 1', 'answer 2']);
      for (const a of attempts) {
        expect(a.error).toBeNull();
        expect(a.duration_ms).toEqual(expect.any(Number));
        expect(a.attempted_at).toMatch(/Z$/);
      }
      expect(Date.parse(d.completed_at as string)).toBeGreaterThanOrEqual(Date.parse(d.created_at as string));
    } finally {
      await hook.close();
    }
  });

  it('gives up at once on 400; a replay sends it again with the same webhook-id', async () => {
    const hook = await receiver((n) => (n === 0 ? { status: 400, body: 'bad hook' } : 204));
    try {
      const { key } = await account({ callback_url: hook.url });
      const id = await send(key, ['+61491570151']);
      const failed = await until(
        () => deliveryOf(id),
        (v) => v.state === 'failed',
      );
      await sleep(400);
      expect(hook.received).toHaveLength(1);
      expect(failed.attempts).toEqual([
        {
          attempted_at: expect.any(String),
          status: 400,
          duration_ms: expect.any(Number),
          error: null,
          response_excerpt: 'bad hook',
        },
      ]);
      expect(failed.completed_at).toEqual(expect.any(String));

      const replay = await http('POST', `/admin/v1/webhooks/${failed.deliveryID}/replay`, ADMIN);
      expect(replay.status).toBe(200);
      expect(replay.body).toMatchObject({
        deliveryID: failed.deliveryID,
        state: 'pending',
        completed_at: null,
      });
      const delivered = await until(
        () => deliveryOf(id),
        (v) => v.state === 'delivered',
      );
      expect(hook.received).toHaveLength(2);
      expect(hook.received[1]!.headers['webhook-id']).toBe(hook.received[0]!.headers['webhook-id']);
      expect(hook.received[1]!.body).toBe(hook.received[0]!.body);
      expect((delivered.attempts as { status: number }[]).map((a) => a.status)).toEqual([400, 204]);

      // Only a failed delivery can be replayed.
      const again = await http('POST', `/admin/v1/webhooks/${failed.deliveryID}/replay`, ADMIN);
      expect(again.status).toBe(403);
      expect(again.body).toMatchObject({ status_code: 403, type: 'VAL_ILLEGAL', arguement: 'deliveryID' });
      expect((await http('POST', '/admin/v1/webhooks/999999/replay', ADMIN)).status).toBe(404);
      expect((await http('POST', '/admin/v1/webhooks/abc/replay', ADMIN)).status).toBe(404);
    } finally {
      await hook.close();
    }
  });

  it('gives up when the schedule is used up: 1 + 3 attempts, then failed', async () => {
    const hook = await receiver(() => ({ status: 503 }));
    try {
      const { key } = await account({ callback_url: hook.url });
      const id = await send(key, ['+61491570152']);
      const d = await until(
        () => deliveryOf(id),
        (v) => v.state === 'failed',
      );
      await sleep(400);
      expect(hook.received).toHaveLength(4);
      expect((d.attempts as { status: number }[]).map((a) => a.status)).toEqual([503, 503, 503, 503]);
    } finally {
      await hook.close();
    }
  });

  it('records a timeout as an attempt with no status and retries it', async () => {
    const hook = await receiver((n) => (n === 0 ? 'hang' : 200));
    try {
      const { key } = await account({ callback_url: hook.url });
      const id = await send(key, ['+61491570153']);
      const d = await until(
        () => deliveryOf(id),
        (v) => v.state === 'delivered',
      );
      const attempts = d.attempts as Record<string, unknown>[];
      expect(attempts.map((a) => [a.status, a.error])).toEqual([
        [null, 'timeout'],
        [200, null],
      ]);
      expect(attempts[0]!.duration_ms as number).toBeGreaterThanOrEqual(900);
    } finally {
      await hook.close();
    }
  });

  it('lists by messageID and state, newest first, with more_results; refuses bad queries and no token', async () => {
    const hook = await receiver(() => 410);
    try {
      const { key } = await account({ callback_url: hook.url, delivery_report: 'per_recipient' });
      const id = await send(key, ['+61491570154']);
      // submitted, sent, delivered: three deliveries, each given up on its 410.
      const all = await until(
        () => listing(`messageID=${id}&state=failed`),
        (v) => v.data.length === 3,
      );
      const ids = all.data.map((d) => d.deliveryID as number);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(all.more_results).toBe(false);
      const page = await listing(`messageID=${id}&limit=2`);
      expect(page.data.map((d) => d.deliveryID)).toEqual(ids.slice(0, 2));
      expect(page.more_results).toBe(true);
      expect((await listing(`messageID=${id}&limit=2&offset=2`)).data.map((d) => d.deliveryID)).toEqual(
        ids.slice(2),
      );
      expect((await listing(`messageID=${id}&state=delivered`)).data).toEqual([]);
      expect((await listing(`messageID=${id}&kind=inbound`)).data).toEqual([]);

      for (const bad of ['state=lost', 'limit=0', 'limit=501', 'messageID=x', 'kind=sms']) {
        const r = await http('GET', `/admin/v1/webhooks?${bad}`, ADMIN);
        expect(r.status, bad).toBe(400);
        expect(r.body).toMatchObject({ status_code: 400, type: 'VAL_ILLEGAL' });
      }
      expect((await http('GET', '/admin/v1/webhooks', null)).status).toBe(401);
      expect((await http('GET', '/admin/v1/webhooks', 'wrong')).status).toBe(401);
      expect((await http('POST', '/admin/v1/webhooks/1/replay', null)).status).toBe(401);
      const options = await http('OPTIONS', '/admin/v1/webhooks/1/replay', null);
      expect(options.status).toBe(200);
      expect(options.body).toEqual(['POST', 'OPTIONS']);
      const wrong = await http('GET', '/admin/v1/webhooks/1/replay', ADMIN);
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('POST, OPTIONS');
      expect((await http('DELETE', '/admin/v1/webhooks', ADMIN)).status).toBe(405);
    } finally {
      await hook.close();
    }
  });

  it('honours Retry-After beyond the scheduled delay', async () => {
    const own = await isolated({ SMSGW_WEBHOOK_RETRY: '100ms,3s' });
    const other = await own.start();
    const hook = await receiver((n) => (n === 0 ? { status: 429, headers: { 'retry-after': '1' } } : 200));
    try {
      const { key } = await account({ callback_url: hook.url }, other.origin);
      await send(key, ['+61491570150'], other.origin);
      await until(
        () => hook.received.length,
        (n) => n >= 2,
      );
      const gap = hook.received[1]!.at - hook.received[0]!.at;
      expect(gap).toBeGreaterThanOrEqual(950);
      expect(gap).toBeLessThan(2500);
    } finally {
      await hook.close();
      await other.server.stop();
      await own.db.drop();
    }
  });

  it('signs with the Standard Webhooks scheme; after a rotation, with both secrets', async () => {
    const hook = await receiver();
    try {
      const { id: accountId, key, secret } = await account({ callback_url: hook.url });
      await send(key, ['+61491570150']);
      await until(
        () => hook.received.length,
        (n) => n >= 1,
      );
      const first = hook.received[0]!;
      const headers = first.headers as Record<string, string>;
      expect(new Webhook(secret).verify(first.body, headers)).toEqual(first.json);
      expect(headers['webhook-signature']!.split(' ')).toHaveLength(1);
      expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      const tampered = { ...headers, 'webhook-id': 'msg_other' };
      expect(() => new Webhook(secret).verify(first.body, tampered)).toThrow();

      const rotated = await http('PATCH', `/admin/v1/accounts/${accountId}`, ADMIN, {
        rotate_webhook_secret: true,
      });
      expect(rotated.status).toBe(200);
      const newSecret = rotated.body.webhook_secret as string;
      expect(newSecret).not.toBe(secret);
      await send(key, ['+61491570151']);
      await until(
        () => hook.received.length,
        (n) => n >= 2,
      );
      const second = hook.received[1]!;
      const signatures = (second.headers['webhook-signature'] as string).split(' ');
      expect(signatures).toHaveLength(2);
      // A receiver still on the old secret and one already on the new both verify it.
      expect(new Webhook(newSecret).verify(second.body, second.headers as Record<string, string>)).toEqual(
        second.json,
      );
      expect(new Webhook(secret).verify(second.body, second.headers as Record<string, string>)).toEqual(
        second.json,
      );
    } finally {
      await hook.close();
    }
  });

  it('one receiver that never answers holds only its own slots; another is served at once', async () => {
    const own = await isolated({ SMSGW_WEBHOOK_TIMEOUT_MS: '5000' });
    const node = await own.start();
    const stuck = await receiver(() => 'hang');
    const healthy = await receiver();
    try {
      const slow = await account({ callback_url: stuck.url }, node.origin);
      const fast = await account({ callback_url: healthy.url }, node.origin);
      await send(
        slow.key,
        Array.from({ length: 100 }, (_, i) => `+614915${String(i).padStart(4, '0')}0`),
        node.origin,
      );
      // The stuck receiver now holds its full share of attempts: 64 in flight (8 connections,
      // 8 pipelined on each), the rest waiting their turn.
      await until(
        () => stuck.open,
        (n) => n >= 64,
      );
      const sentAt = Date.now();
      await send(
        fast.key,
        Array.from({ length: 20 }, (_, i) => `+614916${String(i).padStart(4, '0')}0`),
        node.origin,
      );
      await until(
        () => healthy.received.length,
        (n) => n >= 20,
        5_000,
      );
      // Delivered while every attempt to the stuck receiver was still waiting on its 5 s timeout.
      expect(Date.now() - sentAt).toBeLessThan(3_000);
      expect(stuck.open).toBe(64);
      expect(stuck.maxOpen).toBe(64);
    } finally {
      await stuck.close();
      await healthy.close();
      await node.server.stop();
      await own.db.drop();
    }
  });

  it('sends the inbound webhook queued with the stored message, then marks the message completed', async () => {
    const hook = await receiver();
    try {
      const { id: accountId } = await account({});
      const receivedAt = Date.parse('2026-11-21T15:30:00.123Z');
      await server.store.accounts.addNumber({
        accountId,
        msisdn: '+61491570999',
        ref: 'campaign-9',
        inboundUrl: hook.url,
        createdAt: Date.now(),
      });
      const { record: stored } = await server.store.inbound.receive(
        { from: '+61491570156', to: '+61491570999', body: 'Reply YES', receivedAt, connector: 'simulator' },
        Date.now(),
        createInboundSink(),
      );
      await until(
        () => hook.received.length,
        (n) => n >= 1,
      );
      expect(hook.received[0]!.json).toEqual({
        messageID: stored.id,
        from: '+61491570156',
        to: '+61491570999',
        body: 'Reply YES',
        ref: 'campaign-9',
        tstamp: '2026-11-21T15:30:00.123Z',
        callback_type: 'inbound_message',
        message_type: 'sms',
      });
      const row = await until(
        () =>
          db.conn.db
            .selectFrom('inbound_messages')
            .select('completed_at')
            .where('id', '=', stored.id)
            .executeTakeFirst(),
        (r) => r?.completed_at !== null,
      );
      expect(row!.completed_at).toEqual(expect.any(Number));
      const listed = await listing(`messageID=${stored.id}&kind=inbound`);
      expect(listed.data.map((d) => [d.kind, d.state])).toEqual([['inbound', 'delivered']]);
    } finally {
      await hook.close();
    }
  });

  it('a restart between a failed attempt and its retry loses nothing', async () => {
    const hook = await receiver((n) => (n === 0 ? 502 : 200));
    const own = await isolated({ SMSGW_WEBHOOK_RETRY: '1500ms' });
    const first = await own.start();
    let second: Awaited<ReturnType<typeof start>> | null = null;
    try {
      const { key } = await account({ callback_url: hook.url }, first.origin);
      const id = await send(key, ['+61491570150'], first.origin);
      await until(
        () =>
          own.db.conn.db
            .selectFrom('webhook_deliveries')
            .select('attempts')
            .where('message_id', '=', id)
            .executeTakeFirst(),
        (r) => r?.attempts === 1,
      );
      await first.server.stop();
      expect(hook.received).toHaveLength(1);
      // Waiting for its retry, held by nobody, one step into its schedule.
      const waiting = await own.db.conn.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('message_id', '=', id)
        .execute();
      expect(waiting).toHaveLength(1);
      expect(waiting[0]!).toMatchObject({ state: 'pending', locked_by: null, retry_attempts: 1 });
      expect(waiting[0]!.next_attempt_at).toBeGreaterThan(hook.received[0]!.at);

      second = await own.start();
      await until(
        () => hook.received.length,
        (n) => n >= 2,
      );
      expect(hook.received[1]!.headers['webhook-id']).toBe(hook.received[0]!.headers['webhook-id']);
      expect(hook.received[1]!.at - hook.received[0]!.at).toBeGreaterThanOrEqual(1_300);
      const d = await until(
        async () =>
          (await http('GET', `/admin/v1/webhooks?messageID=${id}`, ADMIN, undefined, second!.origin)).body
            .data[0],
        (v) => v.state === 'delivered',
      );
      expect((d.attempts as { status: number }[]).map((a) => a.status)).toEqual([502, 200]);
    } finally {
      await hook.close();
      await first.server.stop();
      await second?.server.stop();
      await own.db.drop();
    }
  });
});
