import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

/**
 * PostgreSQL only: recipients_work held every submitted recipient, held or not, but there only
 * its held part is read (taking over a node's work, `locked_by = $node`): claims read
 * recipients_claimable (migration 9). Each index of recipients costs about 4 µs of the server's
 * CPU per row written (every status change writes a new entry in each, none of them being HOT),
 * so accepting a recipient paid that for an entry nothing read. recipients_held has only the
 * held ones: a recipient enters it when a node claims it (or accepts it held) and leaves it
 * with its status. SQLite keeps recipients_work: it claims through it (`locked_by is null` is
 * an equality there) and writes an entry once per recipient, not per change.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  if (d.name !== 'postgres') return;
  await sql`create index recipients_held on recipients (locked_by)
    where status = 'submitted' and locked_by is not null`.execute(db);
  await sql`drop index recipients_work`.execute(db);
}

export const heldRecipients: Migration = { version: 11, name: 'held_recipients', up };
