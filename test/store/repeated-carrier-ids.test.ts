import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput } from '../helpers/messages.js';

/**
 * An SMSC that restarts its numbering, or answers two submits with one id, hands out a carrier
 * id already on record. The submits are still recorded (the carrier took them), and the id keeps
 * the recipient it was first given, whose receipts it goes on matching.
 */
describe.each(ENGINES)('carrier ids given twice on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn);
  });
  afterAll(async () => db.drop());

  const accept = (works: Awaited<ReturnType<typeof claim>>, carrierIds: string[][]) =>
    store.engine.tick((ops) =>
      ops.recordSubmits(
        'w',
        'c',
        works.map((work, i) => ({ work, outcome: { kind: 'accepted', carrierIds: carrierIds[i]! }, at: 3 })),
        () => null,
        3,
      ),
    );
  // In the order of their numbers, which the claim does not promise.
  const claim = async () =>
    (await store.engine.tick((ops) => ops.claimSends('w', 2, 10))).sort((a, b) => a.to.localeCompare(b.to));
  const statuses = async () =>
    (await db.conn.db.selectFrom('recipients').select(['msisdn', 'status']).orderBy('id').execute()).map(
      (r) => [r.msisdn, r.status],
    );

  it('records every submit and leaves each id with its first recipient', async () => {
    const account = await createStoreAccount(store, 'ids');
    await store.messages.createMany([messageInput(account.id, ['+61491570170'])]);
    await accept(await claim(), [['id-1']]);

    // A later turn: one id already on record, one given twice in the same turn, one new.
    await store.messages.createMany([
      messageInput(account.id, ['+61491570171', '+61491570172', '+61491570173']),
    ]);
    const second = await claim();
    expect(second).toHaveLength(3);
    const recorded = await accept(second, [['id-1'], ['id-2'], ['id-2', 'id-3']]);
    expect(recorded.stale).toBe(0);
    expect(await statuses()).toEqual([
      ['+61491570170', 'sent'],
      ['+61491570171', 'sent'],
      ['+61491570172', 'sent'],
      ['+61491570173', 'sent'],
    ]);

    const parts = await db.conn.db
      .selectFrom('recipient_parts')
      .innerJoin('recipients', 'recipients.id', 'recipient_parts.recipient_id')
      .select(['recipient_parts.carrier_id', 'recipients.msisdn'])
      .orderBy('recipient_parts.carrier_id')
      .execute();
    expect(parts.map((p) => [p.carrier_id, p.msisdn])).toEqual([
      ['id-1', '+61491570170'],
      ['id-2', '+61491570172'],
      ['id-3', '+61491570173'],
    ]);

    const { changed } = await store.engine.tick((ops) =>
      ops.applyReceipts('c', [{ carrierId: 'id-1', state: 'delivered', at: 10 }], 100),
    );
    expect(changed.map((c) => [c.msisdn, c.status])).toEqual([['+61491570170', 'delivered']]);
  });
});
