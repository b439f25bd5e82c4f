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
  indexedBy: () => '',
};

// Every id and epoch-millisecond value we store stays below 2^53, so int8 is safe as a number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** `url` may carry `?options=-c search_path=NAME` to keep smsgw's tables in a schema of their own. */
export function connectPostgres(url: string, poolSize = 10): Connection {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('connect', (client) => {
    // The hot statements are prepared once (below), and PostgreSQL would switch a prepared
    // statement to a generic plan after five runs. For `= any($1)` over an array of unknown
    // length the generic plan of the receipt match is a hash join over all of recipient_parts,
    // which grows with the table: one node sent 750 recipients/s instead of 3,600 (bench
    // cluster, 30,000 recipients). Planning each run for its actual arrays costs far less.
    // Queued before any other query of this client; a server that does not know the setting
    // (before PostgreSQL 12) keeps its default.
    client.query('set plan_cache_mode = force_custom_plan').catch(() => undefined);
    prepareShapedStatements(client);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: postgresDialect,
    close: () => db.destroy(),
  };
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
