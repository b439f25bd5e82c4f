import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

/**
 * PostgreSQL only: the numbers each message went to, apart from the recipients (`to=` on the
 * outbound list, decisions §16, and the open recipients of a number just suppressed), in place
 * of migration 22's recipients_msisdn.
 *
 * A status change of a recipient is never a HOT update (partial indexes read its status), so
 * PostgreSQL writes a new entry in every index of recipients at each of the three or four
 * changes of a recipient's life; recipients_msisdn's were the costliest, its keys arriving in
 * no order. Here each recipient has one row, written with it and never updated. Measured on this
 * machine (a recipient's life in SQL: insert, claim, sent, delivered, 50,000 recipients with
 * random numbers): 61 µs of PostgreSQL's time per recipient with recipients_msisdn, 49 with
 * this table instead.
 *
 * recipient_id is in the key so that the rows of a number lead straight to its recipients, and
 * retention finds a recipient's row by the whole key without an index of its own.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  if (d.name !== 'postgres') return;
  await sql`create table recipient_numbers (
      msisdn text not null,
      message_id bigint not null,
      recipient_id bigint not null,
      primary key (msisdn, message_id, recipient_id)
    )`.execute(db);
  await sql`insert into recipient_numbers (msisdn, message_id, recipient_id)
    select msisdn, message_id, id from recipients`.execute(db);
  await sql`drop index recipients_msisdn`.execute(db);
}

export const recipientNumbers: Migration = { version: 60, name: 'recipient_numbers', up };
