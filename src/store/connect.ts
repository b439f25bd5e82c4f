import type { DatabaseConfig } from '../config/config.js';
import type { Connection } from './dialect.js';
import { connectPostgres } from './postgres/connect.js';
import { connectSqlite, type SqliteOptions } from './sqlite/connect.js';

export function connect(config: DatabaseConfig, sqlite: SqliteOptions = {}): Connection {
  return config.kind === 'sqlite' ? connectSqlite(config.path, sqlite) : connectPostgres(config.url);
}
