import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const big = d.bigInteger;
  await db.schema
    .createTable('accounts')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('credits', big)
    .addColumn('any_sender', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('callback_url', 'text')
    .addColumn('inbound_url', 'text')
    .addColumn('delivery_report', 'text')
    .addColumn('webhook_secret', 'text', (c) => c.notNull())
    .addColumn('prev_webhook_secret', 'text')
    .addColumn('prev_secret_until', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('account_id', big, (c) => c.notNull().references('accounts.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('revoked_at', big)
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

  await db.schema
    .createTable('senders')
    .addColumn('account_id', big, (c) => c.notNull().references('accounts.id'))
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('senders_pk', ['account_id', 'sender'])
    .execute();

  await db.schema
    .createTable('numbers')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('account_id', big, (c) => c.notNull().references('accounts.id'))
    .addColumn('msisdn', 'text', (c) => c.notNull().unique())
    .addColumn('ref', 'text')
    .addColumn('inbound_url', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('account_id', big, (c) => c.notNull().references('accounts.id'))
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('ref', 'text')
    .addColumn('callback_url', 'text')
    .addColumn('delivery_report', 'text')
    .addColumn('send_at', big, (c) => c.notNull())
    .addColumn('expires_at', big)
    .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('complete_at', big)
    .addColumn('num_parts', 'integer', (c) => c.notNull())
    .addColumn('encoding', 'text', (c) => c.notNull())
    .addColumn('num_recipients', 'integer', (c) => c.notNull())
    .addColumn('open_recipients', 'integer', (c) => c.notNull())
    .addColumn('credits_reserved', big, (c) => c.notNull().defaultTo(0))
    .addColumn('balance_used', big, (c) => c.notNull().defaultTo(0))
    .execute();
  // The list endpoint always filters by account and defaults to newest-first by id.
  await db.schema.createIndex('messages_account_id').on('messages').columns(['account_id', 'id']).execute();
  await db.schema
    .createIndex('messages_account_created')
    .on('messages')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('messages_account_sender')
    .on('messages')
    .columns(['account_id', 'sender'])
    .execute();
  await db.schema.createIndex('messages_account_ref').on('messages').columns(['account_id', 'ref']).execute();

  await db.schema
    .createTable('recipients')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('message_id', big, (c) => c.notNull().references('messages.id'))
    .addColumn('msisdn', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('status_at', big, (c) => c.notNull())
    .addColumn('submitted_at', big)
    .addColumn('sent_at', big)
    .addColumn('final_at', big)
    .addColumn('reached_carrier', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('recipients_message').on('recipients').columns(['message_id', 'id']).execute();
}

export const initial: Migration = { version: 1, name: 'initial', up };
