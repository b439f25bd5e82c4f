import { CompiledQuery, type Kysely } from 'kysely';
import { arrayLiteral } from './postgres/array-literal.js';
import type { Database } from './schema.js';
import { runShapedValues, SHAPED_MARK, usesNumberedParameters } from './shaped-sql.js';

/** Bind parameters per statement: below both engines' limits (SQLite 32,766; PostgreSQL 65,535). */
const MAX_PARAMETERS = 30_000;
/** Rows per PostgreSQL statement: an array parameter per column, so only the message size bounds it. */
const MAX_ARRAY_ROWS = 10_000;

/**
 * Multi-row INSERT of plain values, on the hot paths (recipients of a message, submit
 * attempts, parts, webhook deliveries). Kysely's builder walks one node per value, which
 * profiling showed as a fifth of the server's CPU on 1,000-recipient POSTs; here the statement
 * text is written once per shape (shaped-sql.ts). SQLite gets multi-row VALUES; PostgreSQL
 * gets one array per column, unnested, whose text never changes: 2,000 rows as VALUES took
 * 55–70 µs a row to parse and plan there, more than writing them. The rows went as one JSON
 * parameter read by json_populate_recordset before: for the eleven columns of a recipient
 * that cost 9.5–11 µs of the server's CPU and 6–10 µs of ours per row, against 5.8–6.8 and
 * 4–6.8 with arrays (1,000-row inserts). `tail` is SQL from code that follows the rows
 * (ON CONFLICT …, RETURNING …).
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
    const types = await columnTypes(db, table, columns);
    const text =
      `${SHAPED_MARK}insert into "${table}" (${names}) ` +
      `select * from unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})${tail}`;
    for (let start = 0; start < rows.length; start += MAX_ARRAY_ROWS) {
      const chunk = rows.slice(start, start + MAX_ARRAY_ROWS);
      const arrays = columns.map((_, c) => arrayLiteral(chunk.map((row) => row[c])));
      const result = await db.executeQuery<R>(CompiledQuery.raw(text, arrays));
      for (const row of result.rows) back.push(row);
    }
    return back;
  }
  const width = columns.length;
  for (const [start, size] of sqliteChunks(rows.length, width)) {
    // Sized up front: pushing a bulk POST's values one by one reallocated the array as it grew.
    const parameters: unknown[] = new Array(size * width);
    for (let r = 0; r < size; r++) {
      const row = rows[start + r]!;
      for (let c = 0; c < width; c++) parameters[r * width + c] = row[c];
    }
    const result = await runShapedValues<R>(
      db,
      `insert|${table}|${names}|${size}|${tail}`,
      (p) =>
        `insert into "${table}" (${names}) values ${Array.from({ length: size }, () => `(${p.list(width)})`).join(', ')}${tail}`,
      parameters,
    );
    for (const row of result.rows) back.push(row);
  }
  return back;
}

/**
 * SQLite: the rows of one INSERT, as [start, size] chunks of a few sizes only: whole chunks of
 * the largest, the rest as powers of two (100 rows: 64, 32, 4). Each size is a statement
 * prepared and kept once per connection, and a prepared multi-row INSERT holds about 1 KB per
 * row (90 bytes a value) outside the JS heap: with one statement per row count, the API's and
 * the engine's connections held some 1,200 of them, tens of MB of the server's RSS with 1 M
 * recipients queued (e2e bench --backlog). Rows cost the same per row in statements of 16 rows
 * as of 1,000 (1.4–1.7 µs for twelve columns), so small statements lose nothing but a call each.
 */
const SQLITE_CHUNK_ROWS = 128;

export function sqliteChunks(count: number, columns: number): [number, number][] {
  let largest = SQLITE_CHUNK_ROWS;
  while (largest > 1 && largest * columns > MAX_PARAMETERS) largest /= 2;
  const chunks: [number, number][] = [];
  let start = 0;
  for (; count - start >= largest; start += largest) chunks.push([start, largest]);
  for (let size = largest / 2; start < count; size /= 2) {
    if (count - start >= size) {
      chunks.push([start, size]);
      start += size;
    }
  }
  return chunks;
}

/**
 * PostgreSQL: the SQL types of `columns` of `table`, for the casts of their arrays, read from the
 * catalog once per process (every schema smsgw migrates has the same types).
 */
const typesOf = new Map<string, readonly string[]>();

async function columnTypes(
  db: Kysely<Database>,
  table: string,
  columns: readonly string[],
): Promise<readonly string[]> {
  const key = `${table}|${columns.join(',')}`;
  const known = typesOf.get(key);
  if (known) return known;
  const { rows } = await db.executeQuery<{ name: string; type: string }>(
    CompiledQuery.raw(
      'select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute ' +
        'where attrelid = to_regclass($1) and attnum > 0 and not attisdropped',
      [`"${table}"`],
    ),
  );
  const byName = new Map(rows.map((r) => [r.name, r.type]));
  const types = columns.map((column) => {
    const type = byName.get(column);
    if (type === undefined) throw new Error(`insertRows: ${table} has no column ${column}`);
    return type;
  });
  typesOf.set(key, types);
  return types;
}

function quoted(columns: readonly string[]): string {
  return columns.map((c) => `"${c}"`).join(', ');
}
