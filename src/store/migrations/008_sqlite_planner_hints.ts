import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

/**
 * SQLite's planner has no statistics unless ANALYZE ran, which nothing here does. Without them
 * it takes `connector = ?` on recipient_parts' key (connector, carrier_id) as selective, so the
 * receipt batch's `update recipient_parts … from v` read every part of the connector for each
 * row of v: 12 ms per batch at 300,000 parts, growing with the table. This row of sqlite_stat1
 * says what is true of any gateway (few connectors, one part per key), and the update then looks
 * each receipt's part up by its key. A real ANALYZE later replaces it with measured figures,
 * which lead to the same plan. PostgreSQL keeps statistics of its own.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  if (d.name !== 'sqlite') return;
  // Creates sqlite_stat1 when it does not exist yet (analysing the schema table reads no data).
  await sql`analyze sqlite_schema`.execute(db);
  await sql`delete from sqlite_stat1 where tbl = 'recipient_parts'`.execute(db);
  await sql`insert into sqlite_stat1 (tbl, idx, stat)
    select 'recipient_parts', name, '1000000 100000 1' from sqlite_schema
    where type = 'index' and tbl_name = 'recipient_parts' and name like 'sqlite_autoindex_%'`.execute(db);
}

export const sqlitePlannerHints: Migration = { version: 8, name: 'sqlite_planner_hints', up };
