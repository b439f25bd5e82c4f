import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const big = d.bigInteger;
  // One row per webhook to send; its work item is an outbox row of kind 'webhook' written in
  // the same transaction. The row outlives the work: it is the record a person reads back.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('account_id', big, (c) => c.notNull().references('accounts.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('message_id', big, (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', big, (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('completed_at', big)
    .execute();
  // Claiming walks the origins with pending work and takes each one's due rows in order, so a
  // receiver with a deep backlog is never scanned past to reach another one's work.
  await db.schema
    .createIndex('webhook_deliveries_origin_due')
    .on('webhook_deliveries')
    .columns(['state', 'origin', 'next_attempt_at'])
    .execute();
  // When the delivery runner next has something to do.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['state', 'next_attempt_at'])
    .execute();
  // The admin listing filters by message.
  await db.schema
    .createIndex('webhook_deliveries_message')
    .on('webhook_deliveries')
    .columns(['message_id', 'kind'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('delivery_id', big, (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('attempted_at', big, (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'id'])
    .execute();
}

export const webhooks: Migration = { version: 4, name: 'webhooks', up };
