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

    const run = (now: number) => store.engine.tick((ops) => ops.runMessageJobs(now, 500));
    const first = await run(1);
    expect(first.ran).toBe(3); // the paused message has no release work
    expect(first.changed).toHaveLength(CONTROL_CHUNK);

    const second = await run(2);
    expect(second.ran).toBe(2); // the second big message and the small one after it
    expect(second.changed).toHaveLength(big * 2 + 1 - CONTROL_CHUNK);
    expect((await run(3)).ran).toBe(0);

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
    // Released recipients are send work: due when released, held by no node.
    const sends = await db.conn.db
      .selectFrom('recipients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'submitted')
      .where('due_at', 'in', [1, 2])
      .where('locked_by', 'is', null)
      .where('account_id', '=', account.id)
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
    // Release work for the large and the scheduled one; the first's recipients are send work.
    expect(jobs.map((j) => [j.kind, Number(j.n)])).toEqual([['release', 2]]);
    const due = await db.conn.db
      .selectFrom('recipients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('message_id', '=', ids[0]!)
      .where('status', '=', 'submitted')
      .where('due_at', '=', 0)
      .where('locked_by', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(due.n)).toBe(RELEASE_AT_ACCEPT_MAX);
  });

  it('makes every recipient send work of its account when a group commit spans several INSERT statements', async () => {
    const account = await createStoreAccount(store, 'many');
    // 6 × 1,000 recipients × 6 columns: more bind parameters than one statement takes.
    const created = await store.messages.createMany(
      Array.from({ length: 6 }, (_, i) =>
        messageInput(account.id, msisdns(RELEASE_AT_ACCEPT_MAX, 100_000 + i * 10_000)),
      ),
    );
    const ids = created.map((c) => (c.kind === 'created' ? c.id : 0));
    const queued = await db.conn.db
      .selectFrom('recipients as r')
      .innerJoin('messages as m', 'm.id', 'r.message_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('r.message_id', 'in', ids)
      .where('r.status', '=', 'submitted')
      .where('r.due_at', 'is not', null)
      .whereRef('r.account_id', '=', 'm.account_id')
      .executeTakeFirstOrThrow();
    expect(Number(queued.n)).toBe(6 * RELEASE_AT_ACCEPT_MAX);
  });
});
