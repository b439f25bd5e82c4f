import { CompiledQuery, sql, type Kysely, type QueryResult } from 'kysely';
import { boundedCache } from '../bounded-cache.js';
import { arrayLiteral } from './postgres/array-literal.js';
import type { Database } from './schema.js';

/** A list of values for `p.in()`. */
export interface ListParameter {
  readonly list: readonly unknown[];
}

/** Rows of values for `p.rows()`, each with one value per column. */
export interface RowsParameter {
  readonly rows: readonly (readonly unknown[])[];
}

/** A list parameter: spread into placeholders on SQLite, one array on PostgreSQL. */
export function list(values: readonly unknown[]): ListParameter {
  if (values.length === 0) throw new Error('an IN list needs at least one value');
  return { list: values };
}

/**
 * Rows for a `with v (…) as (${p.rows(…)})` table: unnest on PostgreSQL; on SQLite the rows as
 * one JSON array read by json_each. SQLite joined a VALUES table the wrong way round in
 * `update … from v`: it scanned the whole target table and looked each row up in v (14 ms per
 * batch at 300,000 messages, growing with the table), where json_each drives the join and each
 * target row is one key lookup. One text for any number of rows, too.
 */
export function rows(values: readonly (readonly unknown[])[]): RowsParameter {
  if (values.length === 0) throw new Error('a table of rows needs at least one row');
  return { rows: values };
}

/** Column types a `p.rows()` table declares (PostgreSQL's VALUES would guess them as text). */
export type ColumnType = 'bigint' | 'text';

/** Writes bind placeholders in the dialect's form, in the order they appear in the text. */
export interface Placeholders {
  one(): string;
  /** `count` placeholders separated by commas. */
  list(count: number): string;
  /** The test "is one of the next list() parameter": `in (?, …)`, or `= any($n)`. */
  in(): string;
  /** The next rows() parameter as a table expression of these column types. */
  rows(types: readonly ColumnType[]): string;
}

/**
 * Distinct statement texts kept (each shape counts as one). Evicting one only means writing it
 * again; the cap bounds memory, as a text of a multi-row INSERT runs to tens of kilobytes.
 */
const TEXT_CACHE_SIZE = 500;
const texts = boundedCache<string, string>(TEXT_CACHE_SIZE);
const numberedByAdapter = new WeakMap<object, boolean>();

/**
 * The comment that marks a statement text as one of these: the PostgreSQL connection prepares
 * it once per connection under a name (src/store/postgres/connect.ts), since its text never
 * depends on how many values it carries.
 *
 * Not the statements that join a table of rows (`p.rows()`): PostgreSQL plans those at every
 * run, with the rows in hand. A prepared one soon runs a generic plan, which guesses 10 rows for
 * the table and knows nothing of the target's filter but its statistics; on a young or fast
 * growing table that plan took the target's few "open" rows as the outer side and unnested the
 * arrays again for each of them (the receipt update of 400 parts: 90–320 ms instead of 5, a
 * seventh of the engine bench's time on PostgreSQL). Planning one of these costs a fraction of
 * a millisecond, once per batch of hundreds of rows.
 */
export const SHAPED_MARK = '/*shaped*/ ';

/**
 * Runs a hot statement whose text depends only on its shape (`key`: which statement, and on
 * SQLite the lengths of its lists), written once per shape and reused; the values go straight
 * to the driver. Kysely's builder walks and freezes a node per value and compiles every call
 * again: on the sending engine's statements that was a fifth of the engine thread's time.
 *
 * Lists and tables of rows take the dialect's best form: SQLite gets placeholders for lists (IN
 * lists padded to a power of two, so a statement taking 1–500 values has ten shapes, each
 * prepared once) and JSON for tables of rows (see rows()); PostgreSQL gets one array per list
 * or column (`= any($1)`, `unnest($1, $2)`), so the text is the same for any number of values
 * and is parsed and planned once per connection, where thousands of placeholders cost more to
 * parse and plan than the rows cost to write (tables of rows are planned at each run: see
 * SHAPED_MARK).
 * `write` must use the placeholders in text order; `parameters` follow the same order. Table
 * and column names come from code, never from input.
 */
export function runShaped<R>(
  db: Kysely<Database>,
  key: string,
  write: (p: Placeholders) => string,
  parameters: readonly unknown[],
): Promise<QueryResult<R>> {
  const numbered = usesNumberedParameters(db);
  const values: unknown[] = [];
  const sizes: number[] = [];
  for (const parameter of parameters) {
    if (isList(parameter)) {
      if (numbered) values.push(arrayLiteral(parameter.list));
      else {
        const padded = pad(parameter.list);
        sizes.push(padded.length);
        for (const v of padded) values.push(v);
      }
    } else if (isRows(parameter)) {
      const width = parameter.rows[0]!.length;
      if (numbered) {
        for (let c = 0; c < width; c++) values.push(arrayLiteral(parameter.rows.map((r) => r[c])));
      } else {
        values.push(JSON.stringify(parameter.rows));
      }
    } else {
      values.push(parameter);
    }
  }
  return db.executeQuery<R>(CompiledQuery.raw(shapedText(numbered, key, sizes, write), values));
}

/**
 * runShaped for plain values only, handed to the driver as they are: `values` becomes the
 * query's (Kysely freezes it), so it must be an array the caller made for this call. For a
 * multi-row INSERT's thousands of values, where copying them again was a fifth of what a bulk
 * POST allocated on the API thread.
 */
export function runShapedValues<R>(
  db: Kysely<Database>,
  key: string,
  write: (p: Placeholders) => string,
  values: unknown[],
): Promise<QueryResult<R>> {
  return db.executeQuery<R>(
    CompiledQuery.raw(shapedText(usesNumberedParameters(db), key, [], write), values),
  );
}

function isList(value: unknown): value is ListParameter {
  return typeof value === 'object' && value !== null && 'list' in value && Array.isArray(value.list);
}

function isRows(value: unknown): value is RowsParameter {
  return typeof value === 'object' && value !== null && 'rows' in value && Array.isArray(value.rows);
}

/**
 * An IN list padded to a power of two by repeating its last value: a repeated value changes
 * nothing an IN test selects, updates or deletes.
 */
function pad<T>(values: readonly T[]): readonly T[] {
  let size = 1;
  while (size < values.length) size *= 2;
  if (size === values.length) return values;
  const out = values.slice();
  const last = values[values.length - 1]!;
  while (out.length < size) out.push(last);
  return out;
}

function shapedText(
  numbered: boolean,
  key: string,
  sizes: readonly number[],
  write: (p: Placeholders) => string,
): string {
  const fullKey = `${numbered ? '$' : '?'}|${key}|${sizes.join(',')}`;
  let text = texts.get(fullKey);
  if (text === undefined) {
    let n = 0;
    let sized = 0;
    let joinsRows = false;
    const one = () => (numbered ? `$${++n}` : '?');
    const several = (count: number) => Array.from({ length: count }, one).join(', ');
    text = write({
      one,
      list: several,
      in: () => (numbered ? `= any(${one()})` : `in (${several(sizes[sized++]!)})`),
      rows: (types) => {
        joinsRows = true;
        if (numbered) return `select * from unnest(${types.map((t) => `${one()}::${t}[]`).join(', ')})`;
        const place = one();
        return `select ${types.map((t, i) => `cast(value ->> ${i} as ${t})`).join(', ')} from json_each(${place})`;
      },
    });
    if (numbered && !joinsRows) text = SHAPED_MARK + text;
    texts.set(fullKey, text);
  }
  return text;
}

/** PostgreSQL numbers its parameters ($1), SQLite does not (?); asked once of Kysely's own compiler. */
export function usesNumberedParameters(db: Kysely<Database>): boolean {
  const adapter = db.getExecutor().adapter;
  let numbered = numberedByAdapter.get(adapter);
  if (numbered === undefined) {
    numbered = sql`${0}`.compile(db).sql.startsWith('$');
    numberedByAdapter.set(adapter, numbered);
  }
  return numbered;
}
