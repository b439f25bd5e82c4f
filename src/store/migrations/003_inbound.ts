import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const big = d.bigInteger;
  // Every inbound message is kept, routed or not: account_id null marks one whose number
  // routes to no account, stored so an operator can find it rather than losing it.
  await db.schema
    .createTable('inbound_messages')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('account_id', big, (c) => c.references('accounts.id'))
    // No foreign key: a number may stop routing later, and its past messages stay readable.
    .addColumn('number_id', big)
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('ref', 'text')
    .addColumn('received_at', big, (c) => c.notNull())
    .addColumn('completed_at', big)
    .addColumn('connector', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  // The list always filters by account: newest-first by id, and the received_at window.
  await db.schema
    .createIndex('inbound_account_id')
    .on('inbound_messages')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('inbound_account_received')
    .on('inbound_messages')
    .columns(['account_id', 'received_at'])
    .execute();
}

export const inbound: Migration = { version: 3, name: 'inbound', up };
