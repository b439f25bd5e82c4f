import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>): Promise<void> {
  // An account reads its own webhook deliveries newest first (GET /v1/webhooks, the console's
  // log). Without this, a small account among busy ones walks every other account's history.
  await db.schema
    .createIndex('webhook_deliveries_account')
    .on('webhook_deliveries')
    .columns(['account_id', 'id'])
    .execute();
}

export const consoleReads: Migration = { version: 30, name: 'console_reads', up };
