import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  // decisions §13: an account's send_rate holds across all nodes, so its token bucket lives in
  // the database, one row per metered account, read and spent by whichever node claims. A table
  // of its own rather than columns of `accounts`, so claims never lock the row credit
  // reservations update.
  await db.schema
    .createTable('send_budgets')
    .addColumn('account_id', d.bigInteger, (c) => c.primaryKey())
    .addColumn('tokens', 'double precision', (c) => c.notNull())
    .addColumn('refilled_at', d.bigInteger, (c) => c.notNull())
    .execute();
}

export const sendBudgets: Migration = { version: 24, name: 'send_budgets', up };
