import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendWork } from '../../src/store/engine-store.js';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput, msisdns } from '../helpers/messages.js';

describe.each(ENGINES)('message counters of one batch on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn);
  });
  afterAll(async () => db.drop());

  /** Each work's submit result at `at`: accepted with carrier id `<prefix><recipient>`, else refused. */
  async function recordSubmits(
    works: SendWork[],
    accepted: (work: SendWork) => boolean,
    prefix: string,
    at: number,
  ) {
    await store.engine.tick((ops) =>
      ops.recordSubmits(
        'w',
        'c',
        works.map((work) => ({
          work,
          outcome: accepted(work)
            ? { kind: 'accepted', carrierIds: [`${prefix}${work.recipientId}`] }
            : { kind: 'rejected', reason: 'refused' },
          at,
        })),
        () => null,
        at,
      ),
    );
  }

  it('charges, refunds and completes messages with and without reserved credit in the same batch', async () => {
    const unlimited = await createStoreAccount(store, 'unlimited');
    const prepaid = await createStoreAccount(store, 'prepaid', 10);
    const created = await store.messages.createMany([
      messageInput(unlimited.id, msisdns(3, 0)),
      { ...messageInput(prepaid.id, msisdns(3, 10)), credits: 3 },
    ]);
    const [free, paid] = created.map((c) => (c.kind === 'created' ? c.id : 0));
    const works = await store.engine.tick((ops) => ops.claimSends('w', 1, 10));
    expect(works).toHaveLength(6);
    // Two of each message reach the carrier; the third of each is refused (it never did).
    const accepted = works.filter((w) => !w.to.endsWith('2') && !w.to.endsWith('12'));
    await recordSubmits(works, (work) => accepted.includes(work), 'id', 2);
    const counters = async () =>
      Promise.all(
        [
          [unlimited.id, free!],
          [prepaid.id, paid!],
        ].map(async ([account, id]) => {
          const m = (await store.messages.get(account!, id!))!;
          return [m.openRecipients, m.balanceUsed, m.creditsReserved, m.completeAt];
        }),
      );
    expect(await counters()).toEqual([
      [2, 2, 0, null],
      [2, 2, 0, null],
    ]);
    expect((await store.accounts.get(prepaid.id))?.credits).toBe(7 + 1);

    await store.engine.tick((ops) =>
      ops.applyReceipts(
        'c',
        accepted.map((w) => ({ carrierId: `id${w.recipientId}`, state: 'delivered', at: 3 })),
        3,
      ),
    );
    expect(await counters()).toEqual([
      [0, 2, 0, 3],
      [0, 2, 0, 3],
    ]);
    expect((await store.accounts.get(prepaid.id))?.credits).toBe(8);
  });

  it('counts a message that only reached sent beside one that completed, in the same batch', async () => {
    const account = await createStoreAccount(store, 'mixed');
    const created = await store.messages.createMany([
      messageInput(account.id, msisdns(2, 20)),
      messageInput(account.id, msisdns(1, 30)),
    ]);
    const [sending, refused] = created.map((c) => (c.kind === 'created' ? c.id : 0));
    const works = await store.engine.tick((ops) => ops.claimSends('w', 1, 10));
    expect(works).toHaveLength(3);
    // The first message's two recipients reach the carrier; the second's one is refused.
    await recordSubmits(works, (work) => work.messageId === sending, 'mixed', 4);
    const [first, second] = await Promise.all(
      [sending!, refused!].map((id) => store.messages.get(account.id, id)),
    );
    expect([first!.openRecipients, first!.balanceUsed, first!.completeAt]).toEqual([2, 2, null]);
    expect([second!.openRecipients, second!.balanceUsed, second!.completeAt]).toEqual([0, 0, 4]);
  });
});
