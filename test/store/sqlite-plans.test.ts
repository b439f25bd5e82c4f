import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput } from '../helpers/messages.js';

/**
 * The engine's batch statements on SQLite must find their rows by key, never by reading a whole
 * table: a scan costs nothing on a test's ten rows and grows with every message ever sent (a
 * 1,000,000-recipient backlog once drained at 300/s because of two of them). SQLite plans without
 * statistics, so the plan it shows here is the plan it uses at any size.
 */
describe('SQLite plans of the engine batch statements', () => {
  let db: TestDatabase;
  let store: Store;
  let path: string;
  const prepared: string[] = [];

  beforeAll(async () => {
    const prepare = Database.prototype.prepare;
    // Every statement text the store prepares, to ask SQLite afterwards how it runs each one.
    vi.spyOn(Database.prototype, 'prepare').mockImplementation(function (this: Database.Database, source) {
      prepared.push(source);
      return prepare.call(this, source);
    });
    db = await createTestDatabase('sqlite');
    if (db.config.kind !== 'sqlite') throw new Error('expected SQLite');
    path = db.config.path;
    store = createStore(db.conn);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await db.drop();
  });

  /** SQLite's plan of a statement, one line per step, its parameters all null. */
  function planOf(source: string): string[] {
    const raw = new Database(path, { readonly: true });
    try {
      const statement = raw.prepare(`explain query plan ${source}`);
      const parameters = Array.from({ length: (source.match(/\?/g) ?? []).length }, () => null);
      return statement.all(parameters).map((row) => (row as { detail: string }).detail);
    } finally {
      raw.close();
    }
  }

  it('looks up by key the rows of a batch: parts, message counters, retries, and the next send due', async () => {
    const account = await createStoreAccount(store, 'plans');
    await store.messages.createMany([messageInput(account.id, ['+61491570150', '+61491570151'])]);
    const works = await store.engine.tick((ops) => ops.claimSends('w', 2, 10));
    expect(works).toHaveLength(2);
    await store.engine.tick((ops) =>
      ops.recordSubmits(
        'w',
        'c',
        [
          { work: works[0]!, outcome: { kind: 'accepted', carrierIds: ['a1'] }, at: 3 },
          { work: works[1]!, outcome: { kind: 'retry', reason: 'throttled' }, at: 3 },
        ],
        () => 1_000,
        3,
      ),
    );
    const { changed } = await store.engine.tick((ops) =>
      ops.applyReceipts('c', [{ carrierId: 'a1', state: 'delivered', at: 10 }], 20),
    );
    expect(changed.map((c) => c.status)).toEqual(['delivered']);
    expect(await store.engine.nextDue(20)).toMatchObject({ sends: 1_003 });

    const batchUpdates = new Map(
      prepared.filter((s) => /^\s*with v \(/.test(s)).map((s) => [/update (\w+)/.exec(s)?.[1], s]),
    );
    // The part states, the message counters and the retried recipient each ran once.
    expect([...batchUpdates.keys()].sort()).toEqual(['messages', 'recipient_parts', 'recipients']);
    // The batch drives: each of its rows is looked up by the table's key. The other way round,
    // SQLite reads every row of the table (of the connector, for parts) and looks it up in v.
    for (const table of ['messages', 'recipient_parts']) {
      const plan = planOf(batchUpdates.get(table)!);
      expect({ table, plan: plan[0] }).toEqual({ table, plan: expect.stringMatching(/^SCAN json_each/) });
    }
    // A retried recipient is found among those this node holds (at most its submits in flight).
    expect(planOf(batchUpdates.get('recipients')!)).toContain(
      'SEARCH recipients USING INDEX recipients_work (locked_by=?)',
    );
    // The next send due: one seek per account for its first due_at, not a read of the backlog.
    const nextDue = prepared.find((s) => s.includes('min(due_at)'));
    expect(planOf(nextDue!)).toContain(
      'SEARCH recipients USING COVERING INDEX recipients_work (locked_by=? AND account_id=?)',
    );
  });
});
