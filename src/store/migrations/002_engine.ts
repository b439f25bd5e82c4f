import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const big = d.bigInteger;
  // The durable work queue. Rows are written in the same transaction as the change that
  // causes them and deleted by the worker holding their lease once the work is done.
  await db.schema
    .createTable('outbox')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', big, (c) => c.notNull())
    .addColumn('account_id', big, (c) => c.notNull())
    .addColumn('run_at', big, (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', big)
    .addColumn('last_error', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_due').on('outbox').columns(['kind', 'run_at']).execute();
  // Fair claiming walks accounts in order and takes each one's oldest due work.
  await db.schema
    .createIndex('outbox_account')
    .on('outbox')
    .columns(['kind', 'account_id', 'run_at'])
    .execute();
  await db.schema.createIndex('outbox_subject').on('outbox').columns(['subject_id', 'kind']).execute();

  // One row per part the carrier accepted, keyed by its message id, so receipts find their
  // recipient and a recipient is delivered only when every part is.
  await db.schema
    .createTable('recipient_parts')
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('carrier_id', 'text', (c) => c.notNull())
    .addColumn('recipient_id', big, (c) => c.notNull())
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('state_at', big)
    .addPrimaryKeyConstraint('recipient_parts_pk', ['connector', 'carrier_id'])
    .execute();
  await db.schema
    .createIndex('recipient_parts_recipient')
    .on('recipient_parts')
    .column('recipient_id')
    .execute();

  // Receipts that arrived before the submit that produced their id was recorded.
  await db.schema
    .createTable('orphan_receipts')
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('carrier_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('orphan_receipts_pk', ['connector', 'carrier_id'])
    .execute();

  // Every submit attempt, readable by a person: started before the carrier is called, so an
  // attempt that never finished marks the crash window where a duplicate is possible.
  await db.schema
    .createTable('submit_attempts')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('recipient_id', big, (c) => c.notNull())
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('worker', 'text', (c) => c.notNull())
    .addColumn('started_at', big, (c) => c.notNull())
    .addColumn('finished_at', big)
    .addColumn('outcome', 'text')
    .addColumn('detail', 'text')
    .execute();
  await db.schema
    .createIndex('submit_attempts_recipient')
    .on('submit_attempts')
    .column('recipient_id')
    .execute();

  await db.schema
    .alterTable('recipients')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // The receipt-timeout sweep reads only recipients waiting for a receipt.
  await sql`create index recipients_sent on recipients (sent_at) where status = 'sent'`.execute(db);
  await db.schema
    .createIndex('messages_open')
    .on('messages')
    .columns(['account_id', 'complete_at'])
    .execute();
}

export const engine: Migration = { version: 2, name: 'engine', up };
