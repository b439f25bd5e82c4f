import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/process.js';

/**
 * The webhook queue is durable (decisions §10): a node killed with SIGKILL, with an attempt in
 * flight or a retry waiting, has the webhook sent once a node is back (decisions §23: within
 * the lease TTL of the dead node's last heartbeat).
 */

const KEY = 'webhook-crash-key';
const ADMIN = 'webhook-crash-admin';

interface Received {
  readonly at: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

async function receiver(answer: (n: number) => number | 'hang') {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = received.length;
      received.push({ at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString() });
      const a = answer(n);
      if (a === 'hang') hanging.push(res);
      else res.writeHead(a).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
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
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(ENGINES)('webhooks across a crash on %s', (engineName) => {
  let db: TestDatabase | null = null;
  const servers: ServerProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0))
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    for (const c of cleanups.splice(0)) await c();
    await db?.drop();
    db = null;
  });

  async function boot(port: number, env: Record<string, string>) {
    const s = await startServerProcess(
      {
        SMSGW_DATABASE_URL: db!.url,
        SMSGW_BOOTSTRAP_KEY: KEY,
        SMSGW_ADMIN_TOKEN: ADMIN,
        SMSGW_SIM_DELAY_MS: '20',
        ...env,
      },
      port,
    );
    servers.push(s);
    return s;
  }

  async function call(s: ServerProcess, method: string, path: string, token: string, body?: unknown) {
    const r = await fetch(`${s.baseUrl.replace(/\/v1$/, '')}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
    return { status: r.status, body: (await r.json()) as any };
  }

  async function kill(s: ServerProcess) {
    s.child.kill('SIGKILL');
    await s.exited;
  }

  const delivery = () => db!.conn.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirst();

  /** The bootstrap account reports each recipient's final status to `url`; one message to one recipient. */
  async function sendOne(s: ServerProcess, url: string) {
    const patched = await call(s, 'PATCH', '/admin/v1/accounts/1', ADMIN, {
      callback_url: url,
      delivery_report: 'per_recipient_final',
    });
    expect(patched.status).toBe(200);
    const sent = await call(s, 'POST', '/v1/sms/message', KEY, {
      from: 'Acme',
      to: ['+61491570150'],
      body: 'Hello',
    });
    expect(sent.status).toBe(201);
  }

  it('killed with an attempt in flight: the next node sends it again within the lease TTL, same webhook-id', async () => {
    db = await createTestDatabase(engineName);
    const hook = await receiver((n) => (n === 0 ? 'hang' : 200));
    cleanups.push(hook.close);
    const port = await freePort();
    // The attempt itself would wait a minute; the dead node's lease lapses after two seconds.
    const env = { SMSGW_WEBHOOK_TIMEOUT_MS: '60000', SMSGW_LEASE_TTL: '2s' };
    const first = await boot(port, env);
    await sendOne(first, hook.url);
    await until(
      () => hook.received.length,
      (n) => n === 1,
    );
    await kill(first);
    const held = await delivery();
    expect(held!.state).toBe('pending');
    const deadNode = held!.locked_by;
    expect(deadNode).toEqual(expect.any(String));

    const restartedAt = Date.now();
    await boot(port, env);
    await until(
      () => hook.received.length,
      (n) => n === 2,
    );
    // The lease brought it back, not the hanging attempt's own minute running out.
    expect(Date.now() - restartedAt).toBeLessThan(40_000);
    const nodes = await db.conn.db.selectFrom('nodes').select('id').execute();
    expect(nodes.map((n) => n.id)).not.toContain(deadNode);
    expect(hook.received[1]!.headers['webhook-id']).toBe(hook.received[0]!.headers['webhook-id']);
    expect(hook.received[1]!.body).toBe(hook.received[0]!.body);
    const d = await until(delivery, (v) => v?.state === 'delivered');
    // The attempt cut short by the kill was never written down: the at-least-once window.
    expect(d!.attempts).toBe(1);
    expect(d!.locked_by).toBeNull();
  });

  it('killed while a retry waits: the retry happens after the restart', async () => {
    db = await createTestDatabase(engineName);
    const hook = await receiver((n) => (n === 0 ? 503 : 200));
    cleanups.push(hook.close);
    const port = await freePort();
    const env = { SMSGW_WEBHOOK_RETRY: '3s' };
    const first = await boot(port, env);
    await sendOne(first, hook.url);
    await until(delivery, (v) => v?.attempts === 1);
    await kill(first);
    expect(hook.received).toHaveLength(1);

    await boot(port, env);
    await until(delivery, (v) => v?.state === 'delivered');
    expect(hook.received).toHaveLength(2);
    expect(hook.received[1]!.headers['webhook-id']).toBe(hook.received[0]!.headers['webhook-id']);
    // Not before its time on the schedule (3 s, jittered by at most 10%).
    expect(hook.received[1]!.at - hook.received[0]!.at).toBeGreaterThanOrEqual(2_650);
    const attempts = await db.conn.db.selectFrom('webhook_attempts').select('status').orderBy('id').execute();
    expect(attempts.map((a) => a.status)).toEqual([503, 200]);
  });
});
