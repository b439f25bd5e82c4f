import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput } from '../helpers/messages.js';

describe.each(ENGINES)('receipts of one batch on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn);
  });
  afterAll(async () => db.drop());

  it('applies each part at its own time, in arrival order, and keeps one orphan row per unknown id', async () => {
    const account = await createStoreAccount(store, 'r');
    await store.messages.createMany([
      messageInput(account.id, ['+61491570150', '+61491570151', '+61491570152']),
    ]);
    const works = await store.engine.tick((ops) => ops.claimSends('w', 2, 10));
    const ids = ['a1', 'b1', 'c1'];
    await store.engine.tick((ops) =>
      ops.recordSubmits(
        'w',
        'c',
        works.map((work, i) => ({ work, outcome: { kind: 'accepted', carrierIds: [ids[i]!] }, at: 3 })),
        () => null,
        3,
      ),
    );

    const { changed, unmatched } = await store.engine.tick((ops) =>
      ops.applyReceipts(
        'c',
        [
          { carrierId: 'a1', state: 'enroute', at: 10 },
          { carrierId: 'b1', state: 'delivered', at: 20 },
          { carrierId: 'a1', state: 'delivered', at: 30 },
          { carrierId: 'c1', state: 'failed', at: 40, error: '001' },
          // A late in-transit receipt never reopens a final part.
          { carrierId: 'b1', state: 'enroute', at: 50 },
          { carrierId: 'zz', state: 'enroute', at: 60 },
          { carrierId: 'zz', state: 'delivered', at: 70, error: 'x' },
        ],
        100,
      ),
    );
    expect(changed.map((c) => c.status).sort()).toEqual(['delivered', 'delivered', 'failed']);
    expect([...unmatched]).toEqual(['zz']);
    const parts = await db.conn.db
      .selectFrom('recipient_parts')
      .select(['carrier_id', 'state', 'state_at'])
      .orderBy('carrier_id')
      .execute();
    expect(parts.map((p) => [p.carrier_id, p.state, Number(p.state_at)])).toEqual([
      ['a1', 'delivered', 30],
      ['b1', 'delivered', 20],
      ['c1', 'failed', 40],
    ]);
    // A later batch finds every part final: it moves no part and no recipient.
    const late = await store.engine.tick((ops) =>
      ops.applyReceipts(
        'c',
        [
          { carrierId: 'a1', state: 'failed', at: 110 },
          { carrierId: 'b1', state: 'enroute', at: 120 },
        ],
        200,
      ),
    );
    expect(late.changed).toEqual([]);
    const after = await db.conn.db
      .selectFrom('recipient_parts')
      .select(['carrier_id', 'state', 'state_at'])
      .orderBy('carrier_id')
      .execute();
    expect(after).toEqual(parts);
    const orphans = await db.conn.db.selectFrom('orphan_receipts').selectAll().execute();
    expect(orphans.map((o) => [o.carrier_id, o.state, Number(o.at), o.error])).toEqual([
      ['zz', 'delivered', 70, 'x'],
    ]);
  });
});
