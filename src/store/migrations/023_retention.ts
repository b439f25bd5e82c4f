import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>): Promise<void> {
  // decisions §15: the cleaner takes the oldest finished rows first. Each index holds a row only
  // once it is finished (entered once, at completion), so it costs nothing while work runs.
  await sql`create index messages_completed on messages (complete_at)
    where complete_at is not null`.execute(db);
  await sql`create index inbound_messages_completed on inbound_messages (received_at)
    where completed_at is not null`.execute(db);
  await sql`create index webhook_deliveries_completed on webhook_deliveries (completed_at)
    where completed_at is not null`.execute(db);
}

export const retention: Migration = { version: 23, name: 'retention', up };
