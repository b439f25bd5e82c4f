import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewMessageInput, Store } from '../../src/store/port.js';
import type { SendWork } from '../../src/store/sending.js';
import { createSendRoom } from '../../src/engine/send-room.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput, msisdns } from '../helpers/messages.js';

/**
 * What an acceptance leaves for the engine to find in the database, and so what it must wake:
 * a message whose recipients all went to this node's engine in memory leaves nothing (a claim
 * would find nothing), anything else must be named or it waits for the engine's next idle poll.
 */
describe.each(ENGINES)('work an acceptance leaves for the engine on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  // The engine's own room, as the server shares it with the API.
  const room = createSendRoom();
  const setRoom = (n: number) => room.give(n - room.peek());
  const handed: SendWork[] = [];
  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn, {
      sendHandoff: {
        node: 'node-a',
        take: (n) => room.take(n),
        give: (n) => room.give(n),
        handOff: (work) => handed.push(...work),
      },
    });
  });
  afterAll(async () => db.drop());

  it('names sends the engine had no room for, jobs, and metered sends; nothing for what it was handed', async () => {
    const account = await createStoreAccount(store, 'a');
    const at = 1_000_000;
    const due = (recipients: string[], extra: Partial<NewMessageInput['message']> = {}): NewMessageInput => {
      const input = messageInput(account.id, recipients, { sendAt: at });
      return { ...input, message: { ...input.message, createdAt: at, ...extra } };
    };
    setRoom(3);
    const created = await store.messages.createMany([
      due(msisdns(2, 0)),
      due(msisdns(3, 10)),
      due(msisdns(1, 20), { sendAt: at + 60_000 }),
      due(msisdns(1, 30), { paused: true }),
      { ...due(msisdns(1, 40)), metered: true },
    ]);

    expect(created.map((c) => (c.kind === 'created' ? [...c.queued].sort() : c.kind))).toEqual([
      [],
      ['sends'],
      ['jobs'],
      [],
      ['sends'],
    ]);
    // The first message's two recipients and the second's first: the room there was.
    expect(handed.map((w) => w.to)).toEqual([...msisdns(2, 0), msisdns(1, 10)[0]]);
    expect(room.peek()).toBe(0);
  });

  it('names jobs for a message that expires, though its recipients were handed over', async () => {
    const account = await createStoreAccount(store, 'b');
    setRoom(10);
    const input = messageInput(account.id, msisdns(1, 100));
    const [created] = await store.messages.createMany([
      { ...input, message: { ...input.message, expiresAt: 3_600_000 } },
    ]);
    expect(created).toMatchObject({ kind: 'created', queued: ['jobs'] });
  });
});
