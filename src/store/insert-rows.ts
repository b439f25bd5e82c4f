import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { runShaped } from './shaped-sql.js';

/** Bind parameters per statement: below both engines' limits (SQLite 32,766; PostgreSQL 65,535). */
const MAX_PARAMETERS = 30_000;

/**
 * Multi-row INSERT of plain values, on the hot paths (recipients of a message, outbox jobs,
 * submit attempts, parts). Kysely's builder walks one node per value, which profiling showed as
 * a fifth of the server's CPU on 1,000-recipient POSTs; here the statement text is written once
 * per shape (shaped-sql.ts). `tail` is SQL from code that follows the VALUES (ON CONFLICT …).
 */
export async function insertRows(
  db: Kysely<Database>,
  table: keyof Database & string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  tail = '',
): Promise<void> {
  await insertChunks(db, table, columns, rows, tail);
}

/** Like insertRows, with the named columns of every inserted row back (in no promised order). */
export function insertRowsReturning<R>(
  db: Kysely<Database>,
  table: keyof Database & string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  returning: readonly string[],
): Promise<R[]> {
  return insertChunks<R>(db, table, columns, rows, ` returning ${quoted(returning)}`);
}

async function insertChunks<R>(
  db: Kysely<Database>,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  tail: string,
): Promise<R[]> {
  const back: R[] = [];
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  const names = quoted(columns);
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const parameters: unknown[] = [];
    for (const row of chunk) for (const value of row) parameters.push(value);
    const result = await runShaped<R>(
      db,
      `insert|${table}|${names}|${chunk.length}|${tail}`,
      (p) =>
        `insert into "${table}" (${names}) values ${Array.from({ length: chunk.length }, () => `(${p.list(columns.length)})`).join(', ')}${tail}`,
      parameters,
    );
    for (const row of result.rows) back.push(row);
  }
  return back;
}

function quoted(columns: readonly string[]): string {
  return columns.map((c) => `"${c}"`).join(', ');
}
