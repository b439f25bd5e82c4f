import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput, msisdns } from '../helpers/messages.js';

describe.each(ENGINES)('one group commit of many messages on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn);
  });
  afterAll(async () => db.drop());

  it('gives each message its own id, body and recipients, in order, beside a refusal', async () => {
    const unlimited = await createStoreAccount(store, 'u');
    const limited = await createStoreAccount(store, 'l', 3);
    const withCredits = (body: string, recipients: string[]) => ({
      ...messageInput(limited.id, recipients, { body }),
      credits: recipients.length,
    });
    const created = await store.messages.createMany([
      messageInput(unlimited.id, msisdns(1, 0), { body: 'first' }),
      withCredits('takes two of three credits', msisdns(2, 10)),
      withCredits('needs two, one left: refused', msisdns(2, 20)),
      messageInput(unlimited.id, msisdns(3, 30), { body: 'fourth' }),
      messageInput(unlimited.id, msisdns(1, 40), { body: 'fifth', paused: true }),
    ]);

    expect(created.map((c) => c.kind)).toEqual([
      'created',
      'created',
      'credit_insufficient',
      'created',
      'created',
    ]);
    const ids = created.map((c) => (c.kind === 'created' ? c.id : null));
    expect(new Set(ids.filter((id) => id !== null)).size).toBe(4);
    const read = async (i: number, accountId: number) => {
      const message = await store.messages.get(accountId, ids[i]!);
      const recipients = await store.messages.recipientStatuses(ids[i]!);
      return [message?.body, recipients.map((r) => r.msisdn)];
    };
    expect(await read(0, unlimited.id)).toEqual(['first', msisdns(1, 0)]);
    expect(await read(1, limited.id)).toEqual(['takes two of three credits', msisdns(2, 10)]);
    expect(await read(3, unlimited.id)).toEqual(['fourth', msisdns(3, 30)]);
    expect(await read(4, unlimited.id)).toEqual(['fifth', msisdns(1, 40)]);
  });
});
