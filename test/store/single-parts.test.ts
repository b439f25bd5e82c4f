import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/migrations/index.js';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput } from '../helpers/messages.js';
import { databaseAt } from '../helpers/migrated.js';

/**
 * A receipt for a recipient of one part is matched in one statement (migration 61 records each
 * part's count); recipients of several parts, and parts recorded before the count was, are
 * matched by reading all their parts, in the same batch.
 */
describe.each(ENGINES)('receipts by the count of parts on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn);
  });
  afterAll(async () => db.drop());

  it('moves a one-part recipient at once and a two-part one only when both parts are in', async () => {
    const account = await createStoreAccount(store, 'p');
    await store.messages.createMany([messageInput(account.id, ['+61491570160', '+61491570161'])]);
    const works = await store.engine.tick((ops) => ops.claimSends('w', 2, 10));
    const carrierIds = [['one'], ['long-1', 'long-2']];
    await store.engine.tick((ops) =>
      ops.recordSubmits(
        'w',
        'c',
        works.map((work, i) => ({ work, outcome: { kind: 'accepted', carrierIds: carrierIds[i]! }, at: 3 })),
        () => null,
        3,
      ),
    );
    const statusOf = (changed: { msisdn: string; status: string }[]) =>
      changed.map((c) => [c.msisdn, c.status]).sort();

    // One batch with both kinds: the one-part recipient is decided, the other waits for its part 2.
    const first = await store.engine.tick((ops) =>
      ops.applyReceipts(
        'c',
        [
          { carrierId: 'long-1', state: 'delivered', at: 10 },
          { carrierId: 'one', state: 'enroute', at: 11 },
          { carrierId: 'one', state: 'delivered', at: 12 },
        ],
        100,
      ),
    );
    expect(statusOf(first.changed)).toEqual([[works[0]!.to, 'delivered']]);
    expect([...first.unmatched]).toEqual([]);

    const second = await store.engine.tick((ops) =>
      ops.applyReceipts(
        'c',
        [
          { carrierId: 'long-2', state: 'failed', at: 20 },
          // Repeated for a part already final: nothing moves.
          { carrierId: 'one', state: 'failed', at: 21 },
        ],
        200,
      ),
    );
    expect(statusOf(second.changed)).toEqual([[works[1]!.to, 'failed']]);
    const parts = await db.conn.db
      .selectFrom('recipient_parts')
      .select(['carrier_id', 'parts', 'state', 'state_at'])
      .orderBy('carrier_id')
      .execute();
    expect(parts.map((p) => [p.carrier_id, p.parts, p.state, Number(p.state_at)])).toEqual([
      ['long-1', 2, 'delivered', 10],
      ['long-2', 2, 'failed', 20],
      ['one', 1, 'delivered', 12],
    ]);
  });
});

describe.each(ENGINES)('parts recorded before migration 61 on %s', (engineName) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('still decide their recipients when their receipts come after the upgrade', async () => {
    const old = await databaseAt(engineName, 60);
    cleanups.push(() => old.drop());
    const { db } = old.conn;
    await sql`insert into accounts (id, name, timezone, webhook_secret, created_at)
      values (1, 'acme', 'UTC', 'secret', 0)`.execute(db);
    await sql`insert into messages (id, account_id, sender, body, send_at, created_at, num_parts, encoding,
        num_recipients, open_recipients)
      values (1, 1, 'Acme', 'one', 1000, 1000, 1, 'gsm', 1, 1)`.execute(db);
    await sql`insert into recipients (id, message_id, account_id, msisdn, status, status_code, status_at, sent_at)
      values (1, 1, 1, '+61491570150', 'sent', 0, 1000, 1000)`.execute(db);
    await sql`insert into recipient_parts (connector, carrier_id, recipient_id, part)
      values ('c', 'old-1', 1, 1)`.execute(db);

    await migrate(old.conn);

    const store = createStore(old.conn);
    const { changed, unmatched } = await store.engine.tick((ops) =>
      ops.applyReceipts('c', [{ carrierId: 'old-1', state: 'delivered', at: 2000 }], 3000),
    );
    expect(changed.map((c) => [c.msisdn, c.status])).toEqual([['+61491570150', 'delivered']]);
    expect([...unmatched]).toEqual([]);
  });
});
