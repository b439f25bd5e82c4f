import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput, msisdns } from '../helpers/messages.js';

/**
 * Decisions §13: an account's send_rate holds across all nodes. Two stores on one database
 * stand for two nodes; the clock is the `now` each claim is given.
 */

const T0 = 100_000;

describe.each(ENGINES)('send_rate on %s', (engineName) => {
  let db: TestDatabase;
  let a: Store;
  let b: Store;
  beforeEach(async () => {
    db = await createTestDatabase(engineName);
    a = createStore(db.conn);
    b = createStore(db.conn);
  });
  afterEach(async () => db.drop());

  const claim = async (store: Store, node: string, now: number, limit = 100) =>
    (await store.engine.tick((ops) => ops.claimSends(node, now, limit))).length;

  async function meteredAccount(name: string, sendRate: number) {
    const account = await createStoreAccount(a, name);
    await a.accounts.update(account.id, { sendRate });
    return account;
  }

  it('hands over at most a second of the rate at once, then the rate, shared by every node', async () => {
    const account = await meteredAccount('metered', 10);
    await a.messages.createMany([{ ...messageInput(account.id, msisdns(40)), metered: true }]);

    // Nothing was held by the accepting node: every recipient waits for a claim.
    const held = await db.conn.db
      .selectFrom('recipients')
      .select('id')
      .where('locked_by', 'is not', null)
      .execute();
    expect(held).toEqual([]);

    expect(await claim(a, 'a', T0)).toBe(10);
    // The bucket is empty for both nodes.
    expect(await claim(b, 'b', T0)).toBe(0);
    expect(await claim(a, 'a', T0 + 50)).toBe(0);
    // Half a second later, half a second's worth, whichever node asks.
    expect(await claim(b, 'b', T0 + 500)).toBe(5);
    expect(await claim(a, 'a', T0 + 700)).toBe(2);
    // A long pause refills one second's worth, never more.
    expect(await claim(a, 'a', T0 + 60_000)).toBe(10);
    const waiting = await db.conn.db
      .selectFrom('recipients')
      .select('id')
      .where('status', '=', 'submitted')
      .where('locked_by', 'is', null)
      .execute();
    expect(waiting).toHaveLength(40 - 27);
  });

  it('an empty bucket says when to look again; other accounts are not held back', async () => {
    const metered = await meteredAccount('metered', 4);
    const free = await createStoreAccount(a, 'free');
    await a.messages.createMany([
      { ...messageInput(metered.id, msisdns(10)), metered: true },
      messageInput(free.id, msisdns(10, 100)),
    ]);
    // The free account's recipients were held by nobody here (no handoff), so both are claimed.
    expect(await claim(a, 'a', T0)).toBe(4 + 10);
    // Only the metered account's recipients wait; they are due when its next token is.
    const due = await a.engine.nextDue(T0 + 10);
    expect(due.sends).toBe(T0 + 250);
    expect(await claim(a, 'a', T0 + 250)).toBe(1);
  });

  it('an account without a send_rate is not metered', async () => {
    const account = await createStoreAccount(a, 'free');
    await a.messages.createMany([messageInput(account.id, msisdns(300))]);
    expect(await claim(a, 'a', T0, 300)).toBe(300);
    const budgets = await db.conn.db.selectFrom('send_budgets').selectAll().execute();
    expect(budgets).toEqual([]);
  });
});
