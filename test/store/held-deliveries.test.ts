import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewMessageInput, Store } from '../../src/store/port.js';
import { createSendRoom } from '../../src/engine/send-room.js';
import { createStore } from '../../src/store/store.js';
import type { HeldDelivery } from '../../src/store/webhooks.js';
import type { TransitionSink } from '../../src/store/transitions.js';
import { createReportSink } from '../../src/webhooks/report-sink.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput, msisdns } from '../helpers/messages.js';

/**
 * The webhooks an acceptance queues go to this node's engine in memory, as far as the engine
 * gave room, so no claim has to find them again; the rest wait unheld for any node's claim.
 */
describe.each(ENGINES)('webhooks an acceptance hands to its engine on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  // The engine's own room, as the server shares it with the API.
  const room = createSendRoom();
  const setRoom = (n: number) => room.give(n - room.peek());
  let woken = 0;
  let failNext = false;
  const handed: HeldDelivery[] = [];
  const reports = createReportSink({ onQueued: () => (woken += 1) });
  const sink: TransitionSink = async (tx, changed) => {
    await reports(tx, changed);
    if (failNext) throw new Error('the transaction fails after queueing');
  };

  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn, {
      transitionSink: sink,
      deliveryHandoff: {
        node: 'node-a',
        take: (n) => room.take(n),
        give: (n) => room.give(n),
        handOff: (held) => handed.push(...held),
      },
    });
  });
  afterAll(async () => db.drop());

  const reported = (accountId: number, recipients: string[]): NewMessageInput => {
    const input = messageInput(accountId, recipients);
    return {
      ...input,
      message: { ...input.message, deliveryReport: 'per_recipient', callbackUrl: 'http://127.0.0.1:9/dlr' },
    };
  };
  const holders = async (messageId: number) =>
    (
      await db.conn.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'locked_by'])
        .where('message_id', '=', messageId)
        .orderBy('id')
        .execute()
    ).map((r) => [Number(r.id), r.locked_by]);

  it('hands over as many submitted reports as there is room for, held; the rest wake a claim', async () => {
    const account = await createStoreAccount(store, 'a');
    setRoom(2);
    woken = 0;
    const [created] = await store.messages.createMany([reported(account.id, msisdns(3, 0))]);
    const id = created?.kind === 'created' ? created.id : 0;

    const rows = await holders(id);
    expect(rows.map(([, holder]) => holder)).toEqual(['node-a', 'node-a', null]);
    expect(handed.map((d) => [d.deliveryId, d.messageId, d.kind, d.origin])).toEqual(
      rows.slice(0, 2).map(([deliveryId]) => [deliveryId, id, 'delivery_report', 'http://127.0.0.1:9']),
    );
    expect(handed.map((d) => JSON.parse(d.payload).status)).toEqual(['submitted', 'submitted']);
    expect(room.peek()).toBe(0);
    expect(woken).toBe(1);
  });

  it('gives back the room it did not use, and wakes nothing when all were held', async () => {
    const account = await createStoreAccount(store, 'b');
    handed.length = 0;
    setRoom(10);
    woken = 0;
    const silent = messageInput(account.id, msisdns(2, 10));
    await store.messages.createMany([silent, reported(account.id, msisdns(1, 20))]);
    expect(handed).toHaveLength(1);
    expect(room.peek()).toBe(9);
    expect(woken).toBe(0);
  });

  it('hands over nothing and gives all the room back when the acceptance rolls back', async () => {
    const account = await createStoreAccount(store, 'c');
    handed.length = 0;
    setRoom(10);
    failNext = true;
    try {
      await expect(store.messages.createMany([reported(account.id, msisdns(2, 30))])).rejects.toThrow(
        'the transaction fails after queueing',
      );
    } finally {
      failNext = false;
    }
    expect(handed).toEqual([]);
    expect(room.peek()).toBe(10);
  });
});
