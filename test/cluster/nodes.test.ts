/**
 * Several smsgw node processes on one PostgreSQL database (decisions §23): they start together
 * on an empty database, never share an identity, and when one is killed with SIGKILL mid-send
 * the others take its work over within the lease TTL, losing no recipient and no webhook and
 * sending twice at most the submits it had in flight.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createSmscSimulator, type SmscSimulator } from '../../src/carriers/smpp/smsc/index.js';
import { PG_URL } from '../helpers/engines.js';
import { api, freePort, startServerProcess, type ServerProcess } from '../helpers/process.js';

const KEY = 'cluster-test-key';
const ADMIN = 'cluster-admin';
const FINAL = new Set([
  'delivered',
  'cancelled',
  'expired',
  'aborted',
  'rejected',
  'failed',
  'deleted',
  'unknown',
]);

/** An empty schema of its own (nothing migrated), its URL, and a client on it. */
async function emptySchema() {
  const schema = `c_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.query(`set search_path = ${schema}`);
  return {
    url: `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    query: async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
      (await admin.query<R>(text, values)).rows,
    async drop() {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    },
  };
}

async function until<T>(probe: () => Promise<T> | T, check: (v: T) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Counts each recipient's final reports, by msisdn. */
async function reportReceiver() {
  const finals = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const report = JSON.parse(body) as { recipients: string; status: string };
      if (FINAL.has(report.status)) finals.set(report.recipients, (finals.get(report.recipients) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/dlr`,
    finals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function numbers(message: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `+6149${message}${String(i).padStart(5, '0')}`);
}

describe('several nodes on one PostgreSQL', () => {
  const servers: ServerProcess[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0))
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function node(env: Record<string, string>) {
    const s = await startServerProcess(
      { SMSGW_BOOTSTRAP_KEY: KEY, SMSGW_ADMIN_TOKEN: ADMIN, SMSGW_LOG_LEVEL: 'warn', ...env },
      await freePort(),
    );
    servers.push(s);
    return s;
  }

  it('three nodes started at the same moment on an empty database all come up, each its own id', async () => {
    const db = await emptySchema();
    cleanups.push(() => db.drop());
    const started = await Promise.all([1, 2, 3].map(() => node({ SMSGW_DATABASE_URL: db.url })));
    for (const s of started) {
      const r = await api(s.baseUrl, KEY, 'GET', '/sms/messages');
      expect(r.status).toBe(200);
    }
    // Each engine joins once it has started, just after its API answers.
    const nodes = await until(
      () => db.query<{ id: string; host: string }>('select id, host from nodes'),
      (rows) => rows.length === 3,
    );
    expect(new Set(nodes.map((n) => n.id)).size).toBe(3);
    // One host, three ids: the same host and port can never make two nodes one.
    expect(new Set(nodes.map((n) => n.host)).size).toBe(1);
    expect(await db.query('select name from accounts')).toEqual([{ name: 'default' }]);
  }, 120_000);

  it('a second process with the same SMSGW_NODE_ID refuses to start while the first beats', async () => {
    const db = await emptySchema();
    cleanups.push(() => db.drop());
    const env = { SMSGW_DATABASE_URL: db.url, SMSGW_NODE_ID: 'twin', SMSGW_LEASE_TTL: '2s' };
    const first = await node(env);
    await until(
      () => db.query('select id from nodes'),
      (rows) => rows.length === 1,
    );
    // Its API comes up first; its engine waits out one lease for the id, then gives up.
    const second = await node(env);
    const { code } = await second.exited;
    expect(code).not.toBe(0);
    expect(second.output()).toMatch(
      /node id twin is in use by a running node .*give each node its own SMSGW_NODE_ID/,
    );
    expect(first.child.exitCode).toBeNull();
  }, 120_000);

  it('SIGKILL of a node mid-send: the other takes over within the TTL, nothing is lost, duplicates stay within what was in flight', async () => {
    const db = await emptySchema();
    cleanups.push(() => db.drop());
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-cluster-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const hooks = await reportReceiver();
    cleanups.push(() => hooks.close());
    const common = {
      SMSGW_DATABASE_URL: db.url,
      SMSGW_LEASE_TTL: '3s',
      SMSGW_SIM_DELAY_MS: '300',
      SMSGW_SIM_THROUGHPUT: '400',
      // The killed node's simulator takes its pending receipts with it: those recipients end
      // unknown at the receipt timeout, as with a real SMSC that never sends them.
      SMSGW_RECEIPT_TIMEOUT: '6s',
    };
    const a = await node({ ...common, SMSGW_SIM_JOURNAL: join(dir, 'a.jsonl') });
    const b = await node({ ...common, SMSGW_SIM_JOURNAL: join(dir, 'b.jsonl') });
    const patched = await api(a.baseUrl.replace(/\/v1$/, '/admin/v1'), ADMIN, 'PATCH', '/accounts/1', {
      callback_url: hooks.url,
      delivery_report: 'per_recipient_final',
    });
    expect(patched.status).toBe(200);
    const all: string[] = [];
    for (let m = 1; m <= 4; m++) {
      const to = numbers(m, 500);
      all.push(...to);
      const r = await api(m % 2 ? a.baseUrl : b.baseUrl, KEY, 'POST', '/sms/message', {
        from: 'Acme',
        to,
        body: `m${m}`,
        // Named here rather than left to the account default: another node sees an account
        // change only within a second (its key cache, README), and GET /account reads the
        // account afresh, so it cannot tell when b's POSTs see the new default.
        delivery_report: 'per_recipient_final',
      });
      expect(r.status).toBe(201);
    }
    const journal = (name: string) => {
      try {
        return readFileSync(join(dir, name), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { to: string }).to);
      } catch {
        return [];
      }
    };
    await until(
      () => journal('a.jsonl').length,
      (n) => n >= 200,
    );
    const aNode = (await db.query<{ id: string }>('select id from nodes where pid = $1', [a.child.pid]))[0]!
      .id;
    a.child.kill('SIGKILL');
    await a.exited;
    const killedAt = Date.now();
    // b notices that a's lease has lapsed and takes its work over: a's row goes with it.
    await until(
      () => db.query('select id from nodes where id = $1', [aNode]),
      (rows) => rows.length === 0,
    );
    const takenOverAfter = Date.now() - killedAt;
    // The lease (3 s) and one round of the reaper (half of it), with room for a busy machine:
    // what matters is that the lease, not a timeout of a minute or more, brought it back.
    expect(takenOverAfter).toBeLessThan(3_000 + 1_500 + 5_000);
    expect(
      await db.query("select id from recipients where locked_by = $1 and status = 'submitted'", [aNode]),
    ).toEqual([]);
    expect(
      await db.query("select id from webhook_deliveries where locked_by = $1 and state = 'pending'", [aNode]),
    ).toEqual([]);

    const statuses = await until(
      () => db.query<{ msisdn: string; status: string }>('select msisdn, status from recipients'),
      (rows) => rows.length === all.length && rows.every((r) => FINAL.has(r.status)),
      90_000,
    );
    expect(statuses).toHaveLength(2_000);
    // Every recipient's final report arrived (at least once: webhooks are at-least-once).
    await until(
      () => hooks.finals.size,
      (n) => n === all.length,
    ).catch(async (e: unknown) => {
      // Say where the missing reports are, so a failure on a busy machine explains itself.
      const missing = all.filter((to) => !hooks.finals.has(to));
      const where = await db.query(
        'select r.message_id, r.status, d.state, d.locked_by, count(*) as n from recipients r ' +
          "left join webhook_deliveries d on d.message_id = r.message_id and d.payload like '%' || r.msisdn || '%' " +
          'where r.msisdn = any($1) group by 1, 2, 3, 4 order by 1',
        [missing],
      );
      throw new Error(`${String(e)}; missing reports: ${JSON.stringify(where)}`);
    });
    // What reached the carrier twice was in flight at a when it died, and is marked so.
    const sent = [...journal('a.jsonl'), ...journal('b.jsonl')];
    const times = new Map<string, number>();
    for (const to of sent) times.set(to, (times.get(to) ?? 0) + 1);
    const twice = [...times.values()].filter((n) => n > 1).length;
    const interrupted = Number(
      (
        await db.query<{ n: string }>(
          "select count(*) as n from submit_attempts where outcome = 'interrupted' and worker = $1",
          [aNode],
        )
      )[0]!.n,
    );
    expect(twice).toBeLessThanOrEqual(interrupted);
    // a held at most its room when it died.
    expect(interrupted).toBeLessThanOrEqual(100);
  }, 180_000);

  it('a connector binds once across the nodes (max_binds 1); when its node dies another binds', async () => {
    const db = await emptySchema();
    cleanups.push(() => db.drop());
    const smsc: SmscSimulator = await createSmscSimulator({ receiptDelayMs: 50 });
    cleanups.push(() => smsc.close());
    const env = { SMSGW_DATABASE_URL: db.url, SMSGW_CARRIER: 'smpp', SMSGW_LEASE_TTL: '3s' };
    const a = await node(env);
    const b = await node(env);
    const admin = (s: ServerProcess) => s.baseUrl.replace(/\/v1$/, '/admin/v1');
    expect(
      (
        await api(admin(a), ADMIN, 'POST', '/connectors', {
          name: 'sim',
          host: '127.0.0.1',
          port: smsc.port,
          system_id: 'smsgw',
          password: 'secret',
        })
      ).status,
    ).toBe(201);
    expect((await api(admin(a), ADMIN, 'POST', '/routes', { prefix: '+', connector: 'sim' })).status).toBe(
      201,
    );
    const holder = await until(
      () => db.query<{ node_id: string }>("select node_id from connector_binds where connector = 'sim'"),
      (rows) => rows.length === 1,
    );
    await until(
      () => smsc.connections(),
      (n) => n === 1,
    );
    const pidOf = await db.query<{ id: string; pid: number }>('select id, pid from nodes');
    const binder = pidOf.find((n) => n.id === holder[0]!.node_id)!.pid;
    const [dying, surviving] = a.child.pid === binder ? [a, b] : [b, a];
    dying.child.kill('SIGKILL');
    await dying.exited;
    // The survivor binds once the dead node's lease has lapsed, and sends through it.
    await until(
      () => db.query<{ node_id: string }>("select node_id from connector_binds where connector = 'sim'"),
      (rows) => rows.length === 1 && rows[0]!.node_id !== holder[0]!.node_id,
    );
    const sent = await api(surviving.baseUrl, KEY, 'POST', '/sms/message', {
      from: 'Acme',
      to: ['+61491570150'],
      body: 'after the takeover',
    });
    await until(
      async () =>
        (await api(surviving.baseUrl, KEY, 'GET', `/sms/message/${sent.body.messageID as number}/status`))
          .body,
      (body) => body.to['+61491570150'] === 'delivered',
    );
  }, 120_000);

  it("an account's send_rate holds across the nodes together, not per node", async () => {
    const db = await emptySchema();
    cleanups.push(() => db.drop());
    const env = { SMSGW_DATABASE_URL: db.url, SMSGW_SIM_DELAY_MS: '50' };
    const a = await node(env);
    const rate = 40;
    const patched = await api(a.baseUrl.replace(/\/v1$/, '/admin/v1'), ADMIN, 'PATCH', '/accounts/1', {
      send_rate: rate,
    });
    expect(patched.status).toBe(200);
    // Started after the change, so b knows the rate from its first request (another node's
    // change reaches a running node within a second).
    const b = await node(env);
    const total = 200;
    for (const [i, s] of [a, b].entries()) {
      const r = await api(s.baseUrl, KEY, 'POST', '/sms/message', {
        from: 'Acme',
        to: numbers(i + 1, total / 2),
        body: 'metered',
      });
      expect(r.status).toBe(201);
    }
    const attempts = await until(
      () =>
        // The simulator refuses numbers ending in 6: those are handed over too.
        db.query<{ started_at: string }>('select started_at from submit_attempts where outcome is not null'),
      (rows) => rows.length === total,
    );
    // A second's worth may go at once; the rest at the rate. Per node it would take half as long.
    const times = attempts.map((r) => Number(r.started_at));
    const span = Math.max(...times) - Math.min(...times);
    expect(span).toBeGreaterThanOrEqual(((total - rate) / rate) * 1000 - 100);
  }, 120_000);
});
