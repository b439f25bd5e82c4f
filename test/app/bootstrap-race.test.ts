import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, ensureBootstrapAccount } from '../../src/app/accounts.js';
import { generateApiKey, hashApiKey } from '../../src/app/api-keys.js';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';

/**
 * Nodes started together on an empty database each find no account and create "default"; all
 * but one lose that race. The losers must come up with the winner's account, not exit.
 */
describe('bootstrap account, raced by another node', () => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    store = createStore(db.conn);
  });
  afterAll(async () => db.drop());

  it("comes up with the other node's account and key when that node created them first", async () => {
    const key = generateApiKey();
    // This node counted no accounts; the other node created "default" with the same key next.
    let counted = false;
    const racing: Store = {
      ...store,
      accounts: {
        ...store.accounts,
        count: async () => {
          if (counted) return store.accounts.count();
          counted = true;
          await createAccount(store, { name: 'default', anySender: true, credits: null }, 0, key);
          return 0;
        },
      },
    };

    const result = await ensureBootstrapAccount(racing, key, 0, pino({ level: 'silent' }));

    expect(result).toEqual({ apiKey: null });
    expect(await store.accounts.count()).toBe(1);
    expect((await store.accounts.findByKeyHash(hashApiKey(key)))?.name).toBe('default');
  });
});
