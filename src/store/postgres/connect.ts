import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { SHAPED_MARK } from '../shaped-sql.js';
import type { Connection, Dialect } from '../dialect.js';
import type { Database } from '../schema.js';

export const postgresDialect: Dialect = {
  name: 'postgres',
  serialPrimaryKey: 'bigserial',
  bigInteger: 'bigint',
  maxParameters: 65_000,
  rowLocks: true,
  numbersApart: true,
  speculativeOnConflict: true,
  pickedRows: { column: 'ctid', open: 'ctid = any(array', close: ')' },
  indexedBy: () => '',
};

// Every id and epoch-millisecond value we store stays below 2^53, so int8 is safe as a number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * Settings of every smsgw session, sent in the startup packet (no round trip of their own):
 *
 * - `jit`: compiling a plan to machine code pays for itself on analytical queries that run for
 *   seconds. The engine's statements run for a millisecond, and one whose estimate crossed
 *   jit_above_cost (the account walk of the send claim, on a young table) spent 10 ms compiling.
 * - `random_page_cost`: the default (4) prices an index probe as a read from a spinning disk.
 *   smsgw's working set (the live part of the queue tables) is in memory, and at 4 the receipt
 *   match and the part update read every part of the connector (3–9 ms per batch of 100 at
 *   30,000 parts) instead of probing the key of each (0.5–1 ms).
 *
 * The hot statements are prepared once per connection (below) and keep PostgreSQL's own
 * plan_cache_mode: after five runs it reuses one generic plan when that costs no more than
 * planning each run. With `force_custom_plan`, which this once set, PostgreSQL planned every
 * run again: 20 % of its CPU per recipient (smpp bench: 195–200 against 154–164 µs; engine
 * bench, 200,000 recipients: 125 against 100 µs and 8,668 against 9,841 recipients/s). That
 * setting had been the cure for a generic receipt match that hash-joined all of
 * recipient_parts, planned when the tables had no statistics; with them (./statistics.ts, and
 * each ANALYZE discards the plans made before it) the generic plans probe the keys, whatever
 * the length of their arrays.
 *
 * Settings in the URL's own `options` come after these, so an operator's choice wins.
 */
const SESSION_SETTINGS = '-c jit=off -c random_page_cost=1.1';

/** `url` may carry `?options=-c search_path=NAME` to keep smsgw's tables in a schema of their own. */
export function connectPostgres(url: string, poolSize = 10): Connection {
  const pool = new pg.Pool({ connectionString: withSessionSettings(url), max: poolSize });
  pool.on('connect', (client) => prepareShapedStatements(client));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: postgresDialect,
    close: () => db.destroy(),
  };
}

function withSessionSettings(url: string): string {
  const parsed = new URL(url);
  const own = parsed.searchParams.get('options');
  parsed.searchParams.set('options', own ? `${SESSION_SETTINGS} ${own}` : SESSION_SETTINGS);
  return parsed.toString();
}

/** Statement names by text: a text's name is the same on every connection. */
const names = new Map<string, string>();

/**
 * The hot statements (src/store/shaped-sql.ts) have texts that do not depend on how many
 * values they carry, so each is prepared once per connection under a name and only bound and
 * executed after that: parsing and planning a statement cost more than running it for most of
 * the engine's statements. Other statements (the admin API's, built by Kysely) go unnamed.
 */
function prepareShapedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (
    config: unknown,
    values?: unknown,
    callback?: unknown,
  ) => unknown;
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text !== 'string' || !text.startsWith(SHAPED_MARK)) return query(text, values, callback);
    let name = names.get(text);
    if (name === undefined) {
      name = `s${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      names.set(text, name);
    }
    return query({ name, text, values }, callback);
  }) as typeof client.query;
}
