import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Bind parameters per statement: below both engines' limits (SQLite 32,766; PostgreSQL 65,535). */
const MAX_PARAMETERS = 30_000;
const TEXT_CACHE_SIZE = 500;

const numberedByAdapter = new WeakMap<object, boolean>();
const texts = new Map<string, string>();

/**
 * Multi-row INSERT of plain values, on the hot paths (recipients of a message, outbox jobs).
 * Kysely's builder walks one node per value, which profiling showed as a fifth of the server's
 * CPU on 1,000-recipient POSTs; here the statement text is built once per shape and reused, and
 * the values go straight to the driver. Table and column names come from code, never input.
 */
export async function insertRows(
  db: Kysely<Database>,
  table: keyof Database & string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const parameters: unknown[] = [];
    for (const row of chunk) for (const value of row) parameters.push(value);
    await db.executeQuery(CompiledQuery.raw(statementText(db, table, columns, chunk.length), parameters));
  }
}

/** One row, its new id back: a message per POST, inside the group commit's transaction. */
export async function insertReturningId(
  db: Kysely<Database>,
  table: keyof Database & string,
  columns: readonly string[],
  row: readonly unknown[],
): Promise<number> {
  const text = `${statementText(db, table, columns, 1)} returning "id"`;
  const { rows } = await db.executeQuery<{ id: number }>(CompiledQuery.raw(text, [...row]));
  return rows[0]!.id;
}

function statementText(db: Kysely<Database>, table: string, columns: readonly string[], rows: number) {
  const numbered = usesNumberedParameters(db);
  const key = `${numbered ? '$' : '?'}|${table}|${columns.join(',')}|${rows}`;
  let text = texts.get(key);
  if (text === undefined) {
    const tuples: string[] = [];
    let n = 0;
    for (let r = 0; r < rows; r++) {
      tuples.push(`(${columns.map(() => (numbered ? `$${++n}` : '?')).join(', ')})`);
    }
    text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${tuples.join(', ')}`;
    if (texts.size >= TEXT_CACHE_SIZE) texts.delete(texts.keys().next().value!);
    texts.set(key, text);
  }
  return text;
}

/** PostgreSQL numbers its parameters ($1), SQLite does not (?); asked once of Kysely's own compiler. */
function usesNumberedParameters(db: Kysely<Database>): boolean {
  const adapter = db.getExecutor().adapter;
  let numbered = numberedByAdapter.get(adapter);
  if (numbered === undefined) {
    numbered = sql`${0}`.compile(db).sql.startsWith('$');
    numberedByAdapter.set(adapter, numbered);
  }
  return numbered;
}
