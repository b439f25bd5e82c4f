import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput, msisdns } from '../helpers/messages.js';

/**
 * Two nodes claiming sends at the same moment on one PostgreSQL database (decisions §23): the
 * second passes over what the first has locked and not yet committed instead of waiting for it,
 * and no recipient is held by both. SQLite has one writer, so its claims never overlap.
 */
describe('send claims of two nodes at once on postgres', () => {
  let db: TestDatabase;
  let a: Store;
  let b: Store;
  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    a = createStore(db.conn);
    b = createStore(db.conn);
  });
  afterAll(async () => db.drop());

  it('takes disjoint recipients, the second node without waiting for the first to commit', async () => {
    const account = await createStoreAccount(a, 'claims');
    await a.messages.createMany([messageInput(account.id, msisdns(50))]);
    const now = Date.now() + 1_000;

    let letAGo!: () => void;
    const aMayCommit = new Promise<void>((resolve) => (letAGo = resolve));
    let aClaimed!: () => void;
    const aHasClaimed = new Promise<void>((resolve) => (aClaimed = resolve));
    const first = a.engine.tick(async (ops) => {
      const work = await ops.claimSends('node-a', now, 30);
      aClaimed();
      await aMayCommit;
      return work;
    });
    await aHasClaimed;
    // node-a's transaction is open and holds its 30 rows: node-b gets the other 20 at once.
    const second = await b.engine.tick((ops) => ops.claimSends('node-b', now, 100));
    letAGo();
    const firstWork = await first;

    expect(firstWork).toHaveLength(30);
    expect(second).toHaveLength(20);
    const ids = [...firstWork, ...second].map((w) => w.recipientId);
    expect(new Set(ids).size).toBe(50);
    const holders = await db.conn.db
      .selectFrom('recipients')
      .select(['locked_by'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .groupBy('locked_by')
      .orderBy('locked_by')
      .execute();
    expect(holders.map((h) => [h.locked_by, Number(h.n)])).toEqual([
      ['node-a', 30],
      ['node-b', 20],
    ]);
    // Each claimed recipient comes with what its submit needs.
    expect(second.every((w) => w.to.startsWith('+614') && w.accountId === account.id)).toBe(true);
  });
});
