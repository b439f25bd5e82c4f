import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The final statuses of decisions §7 as SQL text. Queries repeat it word for word: SQLite uses a
 * partial index only for a query whose own text implies the index's WHERE.
 */
export const FINAL_STATUS_LIST =
  "'delivered', 'cancelled', 'expired', 'aborted', 'rejected', 'failed', 'deleted', 'unknown'";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>): Promise<void> {
  // decisions §16, `status=` on the outbound list. A recipient changes status about three times
  // on the hot path; an index holding every recipient's status would be written at each change.
  // Only final statuses enter this one, once each, and never leave it. Transient statuses are
  // found through the messages not yet complete (messages_open), which are few.
  await sql`create index recipients_final on recipients (status, message_id)
    where status in (${sql.raw(FINAL_STATUS_LIST)})`.execute(db);
  // `to=`: the messages sent to a number. msisdn never changes, so SQLite writes this entry once
  // per recipient; PostgreSQL writes a new entry at each status change (those updates cannot be
  // HOT, since recipients_sent's predicate reads status), as it already does for the others.
  await db.schema
    .createIndex('recipients_msisdn')
    .on('recipients')
    .columns(['msisdn', 'message_id'])
    .execute();
  // The messages not yet complete, across accounts: what the queue gauges of /metrics count the
  // pending and submitted recipients of. An entry per message while it is open (SQLite drops it
  // at completion; PostgreSQL leaves it to vacuum), never one per recipient.
  await sql`create index messages_unfinished on messages (id) where complete_at is null`.execute(db);
}

export const listFilters: Migration = { version: 22, name: 'list_filters', up };
