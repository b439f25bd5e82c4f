import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
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
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: postgresDialect,
    close: () => db.destroy(),
  };
}
