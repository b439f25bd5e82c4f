import type { DatabaseConfig } from '../config/config.js';
import type { Connection } from './dialect.js';
import { connectPostgres } from './postgres/connect.js';
import { connectSqlite } from './sqlite/connect.js';

export function connect(config: DatabaseConfig): Connection {
  return config.kind === 'sqlite' ? connectSqlite(config.path) : connectPostgres(config.url);
}
