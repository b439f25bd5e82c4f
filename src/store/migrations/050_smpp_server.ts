import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const big = d.bigInteger;
  // decisions §21: one set of SMPP credentials per account. system_id is what a bind names, so
  // it is unique across accounts; the password is kept only as a scrypt hash.
  await db.schema
    .createTable('smpp_users')
    .addColumn('account_id', big, (c) => c.primaryKey())
    .addColumn('system_id', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('max_binds', 'integer', (c) => c.notNull().defaultTo(4))
    .addColumn('window', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();

  // Messages accepted over SMPP that asked for receipts (registered_delivery): the receipt
  // sink reads this in the transaction of each final status change. Messages that asked for
  // none have no row, so the sink's lookup finds nothing for HTTP traffic.
  await db.schema
    .createTable('smpp_submits')
    .addColumn('message_id', big, (c) => c.primaryKey())
    .addColumn('account_id', big, (c) => c.notNull())
    .addColumn('registered_delivery', 'integer', (c) => c.notNull())
    // The ids the earlier parts of a long submit were answered with, comma-separated: each
    // gets a receipt too, as from an SMSC that stored the parts apart (Kannel waits for all).
    .addColumn('part_ids', 'text')
    .execute();

  // deliver_sm owed to customers (receipts and MO), queued in the transaction of the change
  // they report. A row waits (pending) until a node with a receiver bind of the account claims
  // it (locked_by until locked_until) and the customer answers deliver_sm_resp.
  await db.schema
    .createTable('smpp_deliveries')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('account_id', big, (c) => c.notNull())
    /** receipt | mo */
    .addColumn('kind', 'text', (c) => c.notNull())
    /** The deliver_sm's fields as JSON, built once when queued. */
    .addColumn('payload', 'text', (c) => c.notNull())
    /** pending | done */
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', big)
    .addColumn('next_attempt_at', big, (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('done_at', big)
    .execute();
  // Claiming reads an account's pending rows oldest first; done rows leave the index.
  await sql`create index smpp_deliveries_pending on smpp_deliveries (account_id, next_attempt_at)
    where state = 'pending'`.execute(db);
  await sql`create index smpp_deliveries_done on smpp_deliveries (done_at)
    where state = 'done'`.execute(db);

  // Receiver-capable binds held now, by node: MO goes to an account's SMPP binds only while
  // one is held by a node that is alive (its nodes row exists).
  await db.schema
    .createTable('smpp_binds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', big, (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    /** transmitter | receiver | transceiver */
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('since', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('smpp_binds_account').on('smpp_binds').column('account_id').execute();
}

export const smppServer: Migration = { version: 50, name: 'smpp_server', up };
