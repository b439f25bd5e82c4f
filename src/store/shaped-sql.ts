import { CompiledQuery, sql, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './schema.js';

/** Writes bind placeholders in the dialect's form, in the order they appear in the text. */
export interface Placeholders {
  one(): string;
  /** `count` placeholders separated by commas, for an IN list or a VALUES row. */
  list(count: number): string;
}

/**
 * Distinct statement texts kept (each shape counts as one). Evicting one only means writing it
 * again; the cap bounds memory, as a text of a multi-row INSERT runs to tens of kilobytes.
 */
const TEXT_CACHE_SIZE = 500;
const texts = new Map<string, string>();
const numberedByAdapter = new WeakMap<object, boolean>();

/**
 * Runs a hot statement whose text depends only on its shape (`key`: which statement, and the
 * lengths of its lists), written once per shape and reused; the values go straight to the
 * driver. Kysely's builder walks and freezes a node per value and compiles every call again:
 * on the sending engine's statements (IN lists of a batch's ids, VALUES rows) that was a fifth
 * of the engine thread's time, spent inside transactions that hold SQLite's single writer.
 * `write` must use the placeholders in text order; `parameters` follow the same order. Table
 * and column names come from code, never from input.
 */
export function runShaped<R>(
  db: Kysely<Database>,
  key: string,
  write: (p: Placeholders) => string,
  parameters: readonly unknown[],
): Promise<QueryResult<R>> {
  return db.executeQuery<R>(CompiledQuery.raw(shapedText(db, key, write), [...parameters]));
}

/**
 * An IN list padded to a power of two by repeating its last value, so that a statement taking
 * lists of any length 1–500 has ten shapes instead of 500: each shape is a statement SQLite
 * prepares (tens of µs for long lists) and keeps in a cache of limited size. A repeated value
 * changes nothing an IN test selects, updates or deletes. Not for VALUES rows.
 */
export function padded<T>(values: readonly T[]): readonly T[] {
  if (values.length === 0) return values;
  let size = 1;
  while (size < values.length) size *= 2;
  if (size === values.length) return values;
  const out = values.slice();
  const last = values[values.length - 1]!;
  while (out.length < size) out.push(last);
  return out;
}

function shapedText(db: Kysely<Database>, key: string, write: (p: Placeholders) => string): string {
  const numbered = usesNumberedParameters(db);
  const fullKey = `${numbered ? '$' : '?'}|${key}`;
  let text = texts.get(fullKey);
  if (text === undefined) {
    let n = 0;
    const one = () => (numbered ? `$${++n}` : '?');
    text = write({ one, list: (count) => Array.from({ length: count }, one).join(', ') });
    if (texts.size >= TEXT_CACHE_SIZE) texts.delete(texts.keys().next().value!);
    texts.set(fullKey, text);
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
