import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Connection, Dialect } from '../dialect.js';
import type { Database } from '../schema.js';

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  serialPrimaryKey: 'integer',
  bigInteger: 'integer',
  maxParameters: 32_000,
  rowLocks: false,
};

export function connectSqlite(path: string): Connection {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const raw = new BetterSqlite3(path);
  // WAL lets readers run beside the single writer; synchronous=NORMAL in WAL mode survives a
  // process crash (what the SIGKILL test checks) and loses at most the last commits on power loss,
  // for about 10x the commit rate of FULL.
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('cache_size = -65536');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(raw) }) });
  return {
    db,
    dialect: sqliteDialect,
    close: () => db.destroy(),
  };
}

/** Most distinct statements kept prepared; IN lists of every length each count as one. */
const STATEMENT_CACHE_SIZE = 2000;

/**
 * Kysely's SQLite driver prepares every query afresh; profiling the ingest bench showed that
 * as 13–26% of the server's CPU. better-sqlite3 statements are reusable once a query has
 * finished (Kysely runs one at a time and never streams here), so keep them by SQL text.
 */
function withStatementCache(raw: BetterSqlite3.Database) {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => raw.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = raw.prepare(sql);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
