import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const big = d.bigInteger;
  // decisions §17: one row per suppressed number of an account. The primary key is the lookup a
  // POST makes (account, msisdn IN …) and what makes adding twice a no-op.
  await db.schema
    .createTable('suppressions')
    .addColumn('account_id', big, (c) => c.notNull())
    .addColumn('msisdn', 'text', (c) => c.notNull())
    /** manual | stop | import */
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('suppressions_pk', ['account_id', 'msisdn'])
    .execute();
  // decisions §17 and §19: inbound keywords on by default, no automatic reply, smart encoding off.
  await db.schema
    .alterTable('accounts')
    .addColumn('opt_out_keywords', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('accounts').addColumn('opt_out_reply', 'text').execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('smart_encoding', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export const suppressions: Migration = { version: 40, name: 'suppressions', up };
