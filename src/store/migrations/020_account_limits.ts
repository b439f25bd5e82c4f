import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>): Promise<void> {
  // decisions §13: API requests per second (each node counts its own) and recipients per second
  // handed to carriers (across all nodes). Null, the default, is unlimited.
  await db.schema.alterTable('accounts').addColumn('rate_limit', 'integer').execute();
  await db.schema.alterTable('accounts').addColumn('send_rate', 'integer').execute();
}

export const accountLimits: Migration = { version: 20, name: 'account_limits', up };
