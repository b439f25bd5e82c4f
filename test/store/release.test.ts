import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { CONTROL_CHUNK } from '../../src/store/control.js';
import { RELEASE_AT_ACCEPT_MAX } from '../../src/store/messages.js';
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
      // Scheduled, or it would be submitted at acceptance (only larger messages wait for release).
      messageInput(account.id, msisdns(1, 30_000), { sendAt: 1 }),
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

  it('queues a message due at acceptance for the carrier in the same commit, up to RELEASE_AT_ACCEPT_MAX recipients', async () => {
    const account = await createStoreAccount(store, 'accept');
    const created = await store.messages.createMany([
      messageInput(account.id, msisdns(RELEASE_AT_ACCEPT_MAX, 40_000)),
      messageInput(account.id, msisdns(RELEASE_AT_ACCEPT_MAX + 1, 50_000)),
      messageInput(account.id, msisdns(2, 60_000), { sendAt: 5 }),
      messageInput(account.id, msisdns(2, 70_000), { paused: true }),
    ]);
    const ids = created.map((c) => (c.kind === 'created' ? c.id : 0));
    const recipients = await db.conn.db
      .selectFrom('recipients')
      .select(['message_id', 'status', 'submitted_at', (eb) => eb.fn.countAll<number>().as('n')])
      .where('message_id', 'in', ids)
      .groupBy(['message_id', 'status', 'submitted_at'])
      .orderBy('message_id')
      .execute();
    expect(recipients.map((r) => [r.message_id, r.status, r.submitted_at, Number(r.n)])).toEqual([
      [ids[0], 'submitted', 0, RELEASE_AT_ACCEPT_MAX],
      [ids[1], 'pending', null, RELEASE_AT_ACCEPT_MAX + 1],
      [ids[2], 'pending', null, 2],
      [ids[3], 'pending', null, 2],
    ]);
    const jobs = await db.conn.db
      .selectFrom('outbox')
      .select(['kind', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', account.id)
      .groupBy('kind')
      .orderBy('kind')
      .execute();
    // One send job per recipient of the first; release work for the large and the scheduled one.
    expect(jobs.map((j) => [j.kind, Number(j.n)])).toEqual([
      ['release', 2],
      ['send', RELEASE_AT_ACCEPT_MAX],
    ]);
  });

  it('gives every recipient its send job when a group commit spans several INSERT statements', async () => {
    const account = await createStoreAccount(store, 'many');
    // 6 × 1,000 recipients × 6 columns: more bind parameters than one statement takes.
    const created = await store.messages.createMany(
      Array.from({ length: 6 }, (_, i) =>
        messageInput(account.id, msisdns(RELEASE_AT_ACCEPT_MAX, 100_000 + i * 10_000)),
      ),
    );
    const ids = created.map((c) => (c.kind === 'created' ? c.id : 0));
    const unqueued = await db.conn.db
      .selectFrom('recipients as r')
      .leftJoin('outbox as o', (join) => join.onRef('o.subject_id', '=', 'r.id').on('o.kind', '=', 'send'))
      .select((eb) => [eb.fn.countAll<number>().as('all'), eb.fn.count<number>('o.id').as('queued')])
      .where('r.message_id', 'in', ids)
      .executeTakeFirstOrThrow();
    expect([Number(unqueued.all), Number(unqueued.queued)]).toEqual([
      6 * RELEASE_AT_ACCEPT_MAX,
      6 * RELEASE_AT_ACCEPT_MAX,
    ]);
  });
});
