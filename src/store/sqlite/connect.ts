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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  return {
    db,
    dialect: sqliteDialect,
    close: () => db.destroy(),
  };
}
