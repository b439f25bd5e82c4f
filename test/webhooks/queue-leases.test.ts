import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { insertDeliveriesIn, type ClaimRequest, type DeliveryResult } from '../../src/store/webhooks.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount } from '../helpers/messages.js';

/**
 * The delivery row is its own work item: a claim gives it to one node, only that node moves it
 * on, a node whose heartbeat stopped loses it to the others, a handed-back delivery is due
 * again, and a replay restarts its retry schedule (style §5; decisions §10, §23).
 */

const T0 = 1_000_000;
const TTL = 1_000;

describe.each(ENGINES)('webhook leases on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  let accountId: number;
  beforeEach(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn);
    ({ id: accountId } = await createStoreAccount(store, 'leases'));
  });
  afterEach(async () => db.drop());

  const queue = (urls: readonly string[], now = T0) =>
    db.conn.db.transaction().execute((tx) =>
      insertDeliveriesIn(
        tx,
        urls.map((url, i) => ({ accountId, kind: 'delivery_report', messageId: i + 1, url, payload: '{}' })),
        now,
      ),
    );
  const claim = (worker: string, now: number, more: Partial<ClaimRequest> = {}) =>
    store.engine.tick((ops) =>
      ops.claimWebhooks({
        worker,
        now,
        limit: 100,
        perOrigin: () => 100,
        held: new Map(),
        after: null,
        ...more,
      }),
    );
  const record = (worker: string, results: DeliveryResult[], now: number) =>
    store.engine.tick((ops) => ops.recordWebhookAttempts(worker, results, now));
  const join = (id: string, now: number) =>
    store.engine.join({ id, host: 'test', pid: 1, startedAt: now }, now, TTL, 'resend');
  const row = (id: number) =>
    db.conn.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const result = (
    delivery: DeliveryResult['delivery'],
    next: DeliveryResult['next'],
    status: number,
  ): DeliveryResult => ({
    delivery,
    attempt: { attemptedAt: T0, durationMs: 1, status, error: null, responseExcerpt: '' },
    next,
  });

  it('one holder at a time; a node that stops beating loses it to the next claim; only the holder moves it on', async () => {
    await join('a', T0);
    await join('b', T0);
    await queue(['https://a.example/hook']);
    const [held] = (await claim('a', T0)).deliveries;
    expect(held).toMatchObject({ retryAttempts: 0, url: 'https://a.example/hook' });
    expect(held!.secrets.current).toBe('s');
    expect((await claim('b', T0 + 1)).deliveries).toEqual([]);
    expect(await store.engine.nextDue(T0)).toMatchObject({ webhooks: null });

    // a stops beating; b beats on and takes a's work over once a's lease has run out.
    expect(await store.engine.beat('b', T0 + TTL)).toBe(true);
    expect(await store.engine.takeOver('a', T0 + TTL - 1, TTL, 'resend')).toBeNull();
    expect(await store.engine.takeOver('a', T0 + TTL + 1, TTL, 'resend')).toMatchObject({ deliveries: 1 });
    expect(await store.engine.beat('a', T0 + TTL + 2)).toBe(false);
    const [taken] = (await claim('b', T0 + TTL + 2)).deliveries;
    expect(taken!.deliveryId).toBe(held!.deliveryId);
    expect(taken!.webhookId).toBe(held!.webhookId);

    // a's attempt is stored and counted, but a no longer holds the delivery.
    await record('a', [result(held!, { kind: 'delivered' }, 200)], T0 + TTL + 3);
    expect(await row(held!.deliveryId)).toMatchObject({ state: 'pending', locked_by: 'b', attempts: 1 });

    await record('b', [result(taken!, { kind: 'retry', at: T0 + 5_000 }, 503)], T0 + TTL + 4);
    expect(await row(held!.deliveryId)).toMatchObject({
      state: 'pending',
      locked_by: null,
      attempts: 2,
      retry_attempts: 1,
      next_attempt_at: T0 + 5_000,
    });
    expect(await store.engine.nextDue(T0)).toMatchObject({ webhooks: T0 + 5_000 });
    expect((await claim('c', T0 + 4_999)).deliveries).toEqual([]);
    const [retried] = (await claim('c', T0 + 5_000)).deliveries;
    expect(retried).toMatchObject({ deliveryId: held!.deliveryId, retryAttempts: 1 });

    // Nor does a retry by a node that no longer holds it.
    await record('b', [result(taken!, { kind: 'retry', at: T0 + 9_000 }, 502)], T0 + 5_001);
    expect(await row(held!.deliveryId)).toMatchObject({
      locked_by: 'c',
      attempts: 3,
      retry_attempts: 1,
      next_attempt_at: T0 + 5_000,
    });

    await record('c', [result(retried!, { kind: 'delivered' }, 200)], T0 + 5_002);
    expect(await row(held!.deliveryId)).toMatchObject({
      state: 'delivered',
      locked_by: null,
      attempts: 4,
      completed_at: T0 + 5_002,
    });
    const log = await db.conn.db
      .selectFrom('webhook_attempts')
      .select('status')
      .where('delivery_id', '=', held!.deliveryId)
      .orderBy('id')
      .execute();
    expect(log.map((a) => a.status)).toEqual([200, 503, 502, 200]);
  });

  it('retries of one batch keep each its own time', async () => {
    await queue(['https://a.example/1', 'https://a.example/2', 'https://a.example/3']);
    const { deliveries } = await claim('a', T0);
    expect(deliveries).toHaveLength(3);
    await record(
      'a',
      deliveries.map((d, i) => result(d, { kind: 'retry', at: T0 + 100 * (i + 1) }, 500)),
      T0 + 1,
    );
    for (const [i, d] of deliveries.entries()) {
      expect(await row(d.deliveryId)).toMatchObject({
        next_attempt_at: T0 + 100 * (i + 1),
        retry_attempts: 1,
      });
    }
    const due = (await claim('a', T0 + 200)).deliveries.map((d) => d.deliveryId);
    expect(due.sort((x, y) => x - y)).toEqual(deliveries.slice(0, 2).map((d) => d.deliveryId));
  });

  it('hands back deliveries unattempted: due again at their own time, for any node', async () => {
    await queue(['https://a.example/1', 'https://a.example/2']);
    const { deliveries } = await claim('a', T0);
    expect(deliveries).toHaveLength(2);
    const back = (d: DeliveryResult['delivery']): DeliveryResult => ({
      delivery: d,
      attempt: null,
      next: { kind: 'release' },
    });
    // Only the holder can hand one back.
    await record('b', [back(deliveries[0]!)], T0 + 1);
    expect(await row(deliveries[0]!.deliveryId)).toMatchObject({ locked_by: 'a' });
    await record('a', [back(deliveries[0]!)], T0 + 1);
    expect(await row(deliveries[0]!.deliveryId)).toMatchObject({
      locked_by: null,
      attempts: 0,
      retry_attempts: 0,
    });
    expect((await claim('b', T0 + 1)).deliveries.map((d) => d.deliveryId)).toEqual([
      deliveries[0]!.deliveryId,
    ]);
  });

  it('a replay restarts the retry schedule; attempts keeps counting', async () => {
    await queue(['https://a.example/hook']);
    const [first] = (await claim('a', T0)).deliveries;
    await record('a', [result(first!, { kind: 'retry', at: T0 + 10 }, 500)], T0);
    const [second] = (await claim('a', T0 + 10)).deliveries;
    expect(second!.retryAttempts).toBe(1);
    await record('a', [result(second!, { kind: 'failed' }, 500)], T0 + 11);
    expect(await row(first!.deliveryId)).toMatchObject({ state: 'failed', locked_by: null });
    expect((await claim('a', T0 + 12)).deliveries).toEqual([]);

    const replay = await store.webhooks.replay(first!.deliveryId, T0 + 20);
    expect(replay).toMatchObject({
      kind: 'replayed',
      delivery: { state: 'pending', nextAttemptAt: T0 + 20 },
    });
    expect(await store.webhooks.replay(first!.deliveryId, T0 + 20)).toEqual({
      kind: 'not_failed',
      state: 'pending',
    });
    const [again] = (await claim('a', T0 + 20)).deliveries;
    expect(again).toMatchObject({
      deliveryId: first!.deliveryId,
      webhookId: first!.webhookId,
      retryAttempts: 0,
    });
    expect(await row(first!.deliveryId)).toMatchObject({ attempts: 2, retry_attempts: 0 });
  });

  it('holds at most perOrigin of each origin, counting what the worker already holds', async () => {
    await queue(['https://a.example/1', 'https://a.example/2', 'https://a.example/3', 'https://b.example/1']);
    const { deliveries, backlogged } = await claim('a', T0, {
      perOrigin: () => 2,
      held: new Map([['https://a.example', 1]]),
    });
    expect(deliveries.map((d) => d.url)).toEqual(['https://a.example/1', 'https://b.example/1']);
    expect(backlogged).toEqual(['https://a.example']);
  });
});
