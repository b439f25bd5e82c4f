import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { insertDeliveriesIn, type ClaimRequest, type DeliveryResult } from '../../src/store/webhooks.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount } from '../helpers/messages.js';

/**
 * The delivery row is its own work item: a claim leases it to one worker, only that worker
 * moves it on, an expired or given-back lease makes it due again, and a replay restarts its
 * retry schedule (style §5; decisions §10).
 */

const T0 = 1_000_000;
const LEASE = 1_000;

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
    store.webhooks.claim({
      worker,
      now,
      leaseMs: LEASE,
      limit: 100,
      perOrigin: () => 100,
      held: new Map(),
      after: null,
      ...more,
    });
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

  it('one holder at a time; a lease that ran out goes to the next claim; only the holder moves it on', async () => {
    await queue(['https://a.example/hook']);
    const [held] = (await claim('a', T0)).deliveries;
    expect(held).toMatchObject({ retryAttempts: 0, url: 'https://a.example/hook' });
    expect(held!.secrets.current).toBe('s');
    expect((await claim('b', T0 + LEASE - 1)).deliveries).toEqual([]);
    expect(await store.webhooks.nextDue()).toBe(T0 + LEASE);

    const [taken] = (await claim('b', T0 + LEASE)).deliveries;
    expect(taken!.deliveryId).toBe(held!.deliveryId);
    expect(taken!.webhookId).toBe(held!.webhookId);

    // a's attempt is stored and counted, but a no longer holds the delivery.
    await store.webhooks.record('a', [result(held!, { kind: 'delivered' }, 200)], T0 + LEASE + 1);
    expect(await row(held!.deliveryId)).toMatchObject({ state: 'pending', locked_by: 'b', attempts: 1 });

    await store.webhooks.record(
      'b',
      [result(taken!, { kind: 'retry', at: T0 + 5_000 }, 503)],
      T0 + LEASE + 2,
    );
    expect(await row(held!.deliveryId)).toMatchObject({
      state: 'pending',
      locked_by: null,
      attempts: 2,
      retry_attempts: 1,
      next_attempt_at: T0 + 5_000,
    });
    expect((await claim('c', T0 + 4_999)).deliveries).toEqual([]);
    const [retried] = (await claim('c', T0 + 5_000)).deliveries;
    expect(retried).toMatchObject({ deliveryId: held!.deliveryId, retryAttempts: 1 });

    // Nor does a retry by a worker that no longer holds it.
    await store.webhooks.record('b', [result(taken!, { kind: 'retry', at: T0 + 9_000 }, 502)], T0 + 5_001);
    expect(await row(held!.deliveryId)).toMatchObject({
      locked_by: 'c',
      attempts: 3,
      retry_attempts: 1,
      next_attempt_at: T0 + 5_000 + LEASE,
    });

    await store.webhooks.record('c', [result(retried!, { kind: 'delivered' }, 200)], T0 + 5_002);
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
    await store.webhooks.record(
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

  it('gives back leases: the deliveries named, or all of a worker, due at once', async () => {
    await queue(['https://a.example/1', 'https://a.example/2', 'https://a.example/3']);
    const { deliveries } = await claim('a', T0);
    await claim('b', T0);
    expect(await store.webhooks.release('b', [deliveries[0]!.deliveryId], T0 + 1)).toBe(0);
    expect(await store.webhooks.release('a', [deliveries[0]!.deliveryId], T0 + 1)).toBe(1);
    expect(await row(deliveries[0]!.deliveryId)).toMatchObject({ locked_by: null, next_attempt_at: T0 + 1 });
    expect((await claim('b', T0 + 1)).deliveries.map((d) => d.deliveryId)).toEqual([
      deliveries[0]!.deliveryId,
    ]);

    expect(await store.webhooks.releaseLeases('a', T0 + 2)).toBe(2);
    expect((await claim('b', T0 + 2)).deliveries.map((d) => d.deliveryId).sort((x, y) => x - y)).toEqual(
      deliveries.slice(1).map((d) => d.deliveryId),
    );
  });

  it('a replay restarts the retry schedule; attempts keeps counting', async () => {
    await queue(['https://a.example/hook']);
    const [first] = (await claim('a', T0)).deliveries;
    await store.webhooks.record('a', [result(first!, { kind: 'retry', at: T0 + 10 }, 500)], T0);
    const [second] = (await claim('a', T0 + 10)).deliveries;
    expect(second!.retryAttempts).toBe(1);
    await store.webhooks.record('a', [result(second!, { kind: 'failed' }, 500)], T0 + 11);
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
