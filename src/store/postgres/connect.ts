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
  pool.on('connect', prepareShapedStatements);
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
