/** The deliver_sm queue for SMPP customers at the store, on both engines. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSmppDeliveriesIn } from '../../src/store/smpp/deliveries.js';
import { createStore } from '../../src/store/store.js';
import type { Store } from '../../src/store/port.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';

describe.each(ENGINES)('smpp_deliveries on %s', (engine) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    store = createStore(db.conn);
  });
  afterAll(async () => db.drop());

  const queue = (accountId: number, n: number, at: number) =>
    db.conn.db.transaction().execute((tx) =>
      insertSmppDeliveriesIn(
        tx,
        Array.from({ length: n }, (_, i) => ({ accountId, kind: 'receipt' as const, payload: `{"n":${i}}` })),
        at,
      ),
    );

  it('claims oldest first for the bound accounts only, under a lease only the holder moves', async () => {
    await queue(1, 3, 1000);
    await queue(2, 2, 1000);
    const { deliveries } = store.smpp;
    const a = await deliveries.claim('node-a', [1], 2000, 62_000, 2);
    expect(a.map((r) => r.payload)).toEqual(['{"n":0}', '{"n":1}']);
    expect(a.every((r) => r.accountId === 1 && r.attempts === 1)).toBe(true);
    // Held rows are not claimed again while the lease runs.
    const b = await deliveries.claim('node-b', [1], 2000, 62_000, 10);
    expect(b.map((r) => r.payload)).toEqual(['{"n":2}']);
    // Another node cannot complete what node-a holds.
    await deliveries.complete('node-b', [a[0]!.id], 3000);
    expect(await deliveries.pending(1)).toBe(3);
    await deliveries.complete('node-a', [a[0]!.id], 3000);
    expect(await deliveries.pending(1)).toBe(2);
    // A refused one waits until its retry time.
    await deliveries.retry('node-a', [a[1]!.id], 10_000);
    expect(await deliveries.claim('node-b', [1], 5000, 65_000, 10)).toEqual([]);
    expect((await deliveries.claim('node-b', [1], 10_000, 70_000, 10)).map((r) => r.attempts)).toEqual([2]);
    // A lease that ran out (its node died) frees the row.
    const taken = await deliveries.claim('node-c', [1], 200_000, 260_000, 10);
    expect(taken.map((r) => r.payload).sort()).toEqual(['{"n":1}', '{"n":2}']);
    expect(await deliveries.pending(2)).toBe(2);
  });

  it('retention deletes acknowledged rows and rows that waited longer than it, never a held one', async () => {
    await db.conn.db.deleteFrom('smpp_deliveries').execute();
    await queue(3, 3, 5_000_000);
    const { deliveries } = store.smpp;
    const [done] = await deliveries.claim('n', [3], 5_000_000, 5_060_000, 1);
    await deliveries.complete('n', [done!.id], 5_000_100);
    const [held] = await deliveries.claim('n', [3], 5_000_000, 9_000_000, 1);
    // Only the unheld row waiting since before the cut goes; the acknowledged one is newer.
    expect(await store.retention.deleteSmppDeliveries(5_000_050, 100)).toBe(1);
    expect(await store.retention.deleteSmppDeliveries(5_000_200, 100)).toBe(1);
    const left = await db.conn.db.selectFrom('smpp_deliveries').select('id').execute();
    expect(left.map((r) => Number(r.id))).toEqual([held!.id]);
  });
});
