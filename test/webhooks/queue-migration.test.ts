import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../src/store/migrations/index.js';
import { createStore } from '../../src/store/store.js';
import { loadConfig } from '../../src/config/config.js';
import { startEngine } from '../../src/engine/engine.js';
import { createReportSink } from '../../src/webhooks/report-sink.js';
import { ScriptedConnector } from '../helpers/engine.js';
import { generateWebhookSecret } from '../../src/webhooks/sign.js';
import { ENGINES } from '../helpers/engines.js';
import { databaseAt } from '../helpers/migrated.js';

/**
 * Migration 6 moves webhook work from outbox jobs onto the delivery rows (and migration 7 makes
 * their holder a node). A store upgraded with webhooks pending (a retry waiting, an attempt in
 * flight on a node that is gone) sends them all, each from where its retry schedule stood.
 */

describe.each(ENGINES)('webhook queue migration on %s', (engineName) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('sends what outbox jobs held before, each from where its schedule stood', async () => {
    const received: { path: string; webhookId: string }[] = [];
    const hook = createServer((req, res) => {
      received.push({ path: req.url!, webhookId: String(req.headers['webhook-id']) });
      req.resume();
      req.on('end', () => res.writeHead(req.url === '/exhausted' ? 503 : 200).end());
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => hook.close(() => resolve())));
    const base = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;

    const old = await databaseAt(engineName, 5);
    cleanups.push(old.drop);
    const db = old.conn.db;
    const now = Date.now();
    const { id: accountId } = await db
      .insertInto('accounts')
      .values({ name: 'upgraded', timezone: 'UTC', webhook_secret: generateWebhookSecret(), created_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    // As the version-5 code wrote them: the delivery row, and its work as an outbox job.
    const queued = async (
      path: string,
      state: string,
      job: { attempts: number; runAt: number; lockedUntil?: number } | null,
    ) => {
      const { id } = await db
        .insertInto('webhook_deliveries')
        .values({
          webhook_id: `msg_${path.slice(1)}`,
          account_id: accountId,
          kind: 'delivery_report',
          message_id: 1,
          url: `${base}${path}`,
          origin: base,
          payload: '{}',
          state,
          attempts: job?.attempts ?? 1,
          next_attempt_at: job?.lockedUntil ?? job?.runAt ?? now,
          created_at: now - 60_000,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (job === null) return id;
      await db
        .insertInto('outbox')
        .values({
          kind: 'webhook',
          subject_id: id,
          account_id: accountId,
          run_at: job.runAt,
          attempts: job.attempts,
          locked_by: job.lockedUntil === undefined ? null : 'gone/webhooks',
          locked_until: job.lockedUntil ?? null,
          created_at: now - 60_000,
        })
        .execute();
      return id;
    };
    const retrying = await queued('/retrying', 'pending', { attempts: 1, runAt: now - 1_000 });
    const inFlight = await queued('/in-flight', 'pending', {
      attempts: 0,
      runAt: now - 5_000,
      lockedUntil: now + 3_600_000,
    });
    const exhausted = await queued('/exhausted', 'pending', { attempts: 2, runAt: now - 1_000 });
    const done = await queued('/done', 'delivered', null);
    await db
      .insertInto('outbox')
      .values({ kind: 'send', subject_id: 7, account_id: accountId, run_at: now, created_at: now })
      .execute();

    // Every later migration applies too; 6 is the one this test is about.
    expect(await migrate(old.conn)).toEqual(MIGRATIONS.map((m) => m.version).filter((v) => v > 5));
    // No webhook work is left in the outbox; the send job became its recipient's own (7).
    expect(await db.selectFrom('outbox').select('kind').execute()).toEqual([]);
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'state', 'retry_attempts', 'locked_by', 'next_attempt_at'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: retrying, state: 'pending', retry_attempts: 1, locked_by: null, next_attempt_at: now - 1_000 },
      // The lease of a node that is gone does not hold it back for an hour.
      { id: inFlight, state: 'pending', retry_attempts: 0, locked_by: null, next_attempt_at: now - 5_000 },
      { id: exhausted, state: 'pending', retry_attempts: 2, locked_by: null, next_attempt_at: now - 1_000 },
      { id: done, state: 'delivered', retry_attempts: 0, locked_by: null, next_attempt_at: now },
    ]);

    const store = createStore(old.conn, { transitionSink: createReportSink() });
    const engine = await startEngine({
      store,
      connector: new ScriptedConnector(),
      // Two retries: the delivery whose job had failed twice has its last attempt left.
      config: loadConfig({
        SMSGW_WEBHOOK_RETRY: '20ms,20ms',
        SMSGW_WEBHOOK_TIMEOUT_MS: '2000',
        SMSGW_WEBHOOK_ALLOW_PRIVATE: 'true',
      }),
      logger: pino({ level: 'silent' }),
      now: () => Date.now(),
      node: { id: 'upgraded-node', host: 'test', pid: 1 },
    });
    cleanups.push(() => engine.stop());
    const states = () =>
      db.selectFrom('webhook_deliveries').select(['id', 'state', 'attempts']).orderBy('id').execute();
    const deadline = Date.now() + 10_000;
    while ((await states()).some((d) => d.state === 'pending') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await states()).toEqual([
      { id: retrying, state: 'delivered', attempts: 2 },
      { id: inFlight, state: 'delivered', attempts: 1 },
      { id: exhausted, state: 'failed', attempts: 3 },
      { id: done, state: 'delivered', attempts: 1 },
    ]);
    expect(received.map((r) => [r.path, r.webhookId]).sort()).toEqual([
      ['/exhausted', 'msg_exhausted'],
      ['/in-flight', 'msg_in-flight'],
      ['/retrying', 'msg_retrying'],
    ]);
  });
});
