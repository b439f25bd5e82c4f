import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { CONTROL_CHUNK } from '../../src/store/control.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput, msisdns } from '../helpers/messages.js';

describe.each(ENGINES)('releasing due messages together on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn);
  });
  afterAll(async () => db.drop());

  it('releases many messages per transaction, a chunk at most, and finishes the rest on the next run', async () => {
    const account = await createStoreAccount(store, 'r');
    const big = CONTROL_CHUNK * 0.6;
    const created = await store.messages.createMany([
      messageInput(account.id, msisdns(big, 0)),
      messageInput(account.id, msisdns(big, 10_000)),
      messageInput(account.id, msisdns(1, 20_000), { paused: true }),
      messageInput(account.id, msisdns(1, 30_000)),
    ]);
    expect(created.map((c) => c.kind)).toEqual(['created', 'created', 'created', 'created']);

    const first = await store.engine.claimMessageJobs('w', 1, 60_000, 500);
    expect(first).toHaveLength(3); // the paused message has no release work
    const changed = await store.engine.runMessageJobs(first, 'w', 1);
    expect(changed).toHaveLength(CONTROL_CHUNK);

    const second = await store.engine.claimMessageJobs('w', 2, 60_000, 500);
    expect(second).toHaveLength(2); // the second big message and the small one after it
    expect((await store.engine.runMessageJobs(second, 'w', 2)).length).toBe(big * 2 + 1 - CONTROL_CHUNK);
    expect(await store.engine.claimMessageJobs('w', 3, 60_000, 500)).toHaveLength(0);

    const statuses = await db.conn.db
      .selectFrom('recipients')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .orderBy('status')
      .execute();
    expect(statuses.map((s) => [s.status, Number(s.n)])).toEqual([
      ['pending', 1],
      ['submitted', big * 2 + 1],
    ]);
    const sends = await db.conn.db
      .selectFrom('outbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('kind', '=', 'send')
      .executeTakeFirstOrThrow();
    expect(Number(sends.n)).toBe(big * 2 + 1);
  });
});
