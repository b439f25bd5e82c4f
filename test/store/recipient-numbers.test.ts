import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/migrations/index.js';
import { createStore } from '../../src/store/store.js';
import { databaseAt } from '../helpers/migrated.js';

/**
 * Migration 60 (PostgreSQL): the numbers of every recipient already stored move to
 * recipient_numbers, and `to=` finds them there once recipients_msisdn is gone.
 */
describe('recipient numbers on postgres', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('an upgraded store finds its earlier messages by number', async () => {
    const old = await databaseAt('postgres', 50);
    cleanups.push(() => old.drop());
    const { db } = old.conn;
    await sql`insert into accounts (id, name, timezone, webhook_secret, created_at)
      values (1, 'acme', 'UTC', 'secret', 0)`.execute(db);
    await sql`insert into messages (id, account_id, sender, body, send_at, created_at, num_parts, encoding,
        num_recipients, open_recipients)
      values (1, 1, 'Acme', 'one', 1000, 1000, 1, 'gsm', 2, 0), (2, 1, 'Acme', 'two', 2000, 2000, 1, 'gsm', 1, 1)`.execute(
      db,
    );
    await sql`insert into recipients (message_id, account_id, msisdn, status, status_code, status_at)
      values (1, 1, '+61491570150', 'delivered', 0, 1000), (1, 1, '+61491570151', 'failed', 0, 1000),
        (2, 1, '+61491570150', 'pending', 0, 2000)`.execute(db);

    await migrate(old.conn);

    const numbers = await sql<{ msisdn: string; message_id: number }>`select msisdn, message_id
      from recipient_numbers order by message_id, msisdn`.execute(db);
    expect(numbers.rows).toEqual([
      { msisdn: '+61491570150', message_id: 1 },
      { msisdn: '+61491570151', message_id: 1 },
      { msisdn: '+61491570150', message_id: 2 },
    ]);
    const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes
      where schemaname = current_schema() and tablename = 'recipients'`.execute(db);
    expect(indexes.rows.map((r) => r.indexname)).not.toContain('recipients_msisdn');

    const store = createStore(old.conn);
    const list = async (recipient: string) =>
      (
        await store.messages.list(1, {
          recipient,
          createdMin: 0,
          sort: [{ field: 'messageID', descending: true }],
          limit: 10,
          offset: 0,
        })
      ).rows.map((m) => m.id);
    expect(await list('+61491570150')).toEqual([2, 1]);
    expect(await list('+61491570151')).toEqual([1]);
    expect(await list('+61491570152')).toEqual([]);
  });
});
