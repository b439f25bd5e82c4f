import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

/**
 * The send claim walks the accounts with unheld submitted recipients (min(account_id) where
 * locked_by is null, then the next) and takes each one's oldest due. recipients_work leads with
 * locked_by, and PostgreSQL does not take `locked_by is null` as fixing that column: it cannot
 * read that index in account or due order, so it read every unheld recipient and sorted them
 * (12 ms per claim at 20,000 queued, growing with the queue). SQLite treats IS NULL as an
 * equality and reads recipients_work in order, so it gets no second index to write.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  if (d.name !== 'postgres') return;
  await sql`create index recipients_claimable on recipients (account_id, due_at)
    where status = 'submitted' and locked_by is null`.execute(db);
}

export const claimableRecipients: Migration = { version: 9, name: 'claimable_recipients', up };
