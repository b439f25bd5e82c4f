import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

/**
 * PostgreSQL only: two costs of the sending path that buy nothing there.
 *
 * - **Foreign keys of the rows written per recipient and per webhook.** PostgreSQL checks a
 *   foreign key row by row, with a query and a row lock on the parent each time: inserting
 *   1,000 recipients took 28 ms of the server's CPU with `recipients.message_id`'s key and 17
 *   without. These rows are only ever written by smsgw, in the transaction that writes or locks
 *   their parent (a message's recipients with the message, a delivery's attempt while the
 *   delivery is held), and removed children first (src/store/retention.ts), so the keys caught
 *   nothing the code does not already ensure. SQLite keeps them: there a check is one probe of
 *   the parent's primary key in the writer's own thread.
 * - **Room for HOT updates of recipient_parts.** A receipt sets its part's state, which no index
 *   reads, so PostgreSQL can write the new row version on the same page instead of a new entry
 *   in each of the table's two indexes, if the page has room. At the default fillfactor (100)
 *   inserts fill every page and none of these updates was HOT; at 70, 37 %; at 50, 85 % (a
 *   receipt batch updates most rows of a page at once). The table ends up about as large
 *   (45,000 parts: 7.5 MB at 100, 8.0 at 50), since versions that are not HOT take new pages
 *   too. Engine bench, three alternating pairs each:
 *   PostgreSQL's CPU per recipient 146–162 µs at 100, 132–173 at 70, 123–137 at 50. The
 *   table's new pages get the room; existing ones keep theirs until rewritten.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  if (d.name !== 'postgres') return;
  await sql`alter table recipients drop constraint if exists recipients_message_id_fkey`.execute(db);
  await sql`alter table webhook_deliveries drop constraint if exists webhook_deliveries_account_id_fkey`.execute(
    db,
  );
  await sql`alter table webhook_attempts drop constraint if exists webhook_attempts_delivery_id_fkey`.execute(
    db,
  );
  await sql`alter table recipient_parts set (fillfactor = 50)`.execute(db);
}

export const hotPathWrites: Migration = { version: 10, name: 'hot_path_writes', up };
