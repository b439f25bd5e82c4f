import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * How many parts the recipient of each part has, written with the part: a receipt for a
 * recipient of one part decides its status alone, so matching it takes one UPDATE … RETURNING
 * instead of a read of the recipient's parts and then an UPDATE (src/store/receipts.ts). Null for
 * the parts written before: their receipts take the read, as before.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table recipient_parts add column parts integer`.execute(db);
}

export const singleParts: Migration = { version: 61, name: 'single_parts', up };
