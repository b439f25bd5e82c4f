import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const big = d.bigInteger;
  // decisions §14. A row is claimed (`running`, with its owner and a lease) before the message
  // is validated, and becomes `done` with its answer in the transaction that stores the message,
  // so `done` exists exactly when the message does. A refused request deletes its claim.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', big, (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    /** SHA-256 of the body as canonical JSON: equal JSON, equal fingerprint. */
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('owner', 'text')
    .addColumn('locked_until', big)
    .addColumn('message_id', big)
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
    .execute();
  // The cleaner deletes keys older than 24 hours, oldest first.
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .column('created_at')
    .execute();
}

export const idempotencyKeys: Migration = { version: 21, name: 'idempotency_keys', up };
