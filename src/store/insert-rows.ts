import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { runShaped, SHAPED_MARK, usesNumberedParameters } from './shaped-sql.js';

/** Bind parameters per statement: below both engines' limits (SQLite 32,766; PostgreSQL 65,535). */
const MAX_PARAMETERS = 30_000;
/** Rows per PostgreSQL statement: one JSON parameter, so only the message size bounds it. */
const MAX_JSON_ROWS = 10_000;

/**
 * Multi-row INSERT of plain values, on the hot paths (recipients of a message, submit
 * attempts, parts, webhook deliveries). Kysely's builder walks one node per value, which
 * profiling showed as a fifth of the server's CPU on 1,000-recipient POSTs; here the statement
 * text is written once per shape (shaped-sql.ts). SQLite gets multi-row VALUES; PostgreSQL
 * gets the rows as one JSON parameter read by json_populate_recordset, whose text never
 * changes: 2,000 rows as VALUES took 55–70 µs a row to parse and plan there, more than
 * writing them. `tail` is SQL from code that follows the rows (ON CONFLICT …, RETURNING …).
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

/**
 * Like insertRows, with the named columns of every inserted row back. Both engines number the
 * rows of one INSERT in the order given (SQLite, the single writer, takes the next rowid row by
 * row; PostgreSQL calls nextval row by row), which callers may rely on; the rows come back in
 * no promised order.
 */
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
  const names = quoted(columns);
  if (usesNumberedParameters(db)) {
    for (let start = 0; start < rows.length; start += MAX_JSON_ROWS) {
      const chunk = rows.slice(start, start + MAX_JSON_ROWS).map((row) => {
        const record: Record<string, unknown> = {};
        columns.forEach((c, i) => (record[c] = row[i]));
        return record;
      });
      const result = await db.executeQuery<R>(
        CompiledQuery.raw(
          `${SHAPED_MARK}insert into "${table}" (${names}) select ${names} ` +
            `from json_populate_recordset(null::"${table}", $1)${tail}`,
          [JSON.stringify(chunk)],
        ),
      );
      for (const row of result.rows) back.push(row);
    }
    return back;
  }
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
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
