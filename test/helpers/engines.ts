import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseConfig } from '../../src/config/config.js';
import type { Connection } from '../../src/store/dialect.js';
import { migrate } from '../../src/store/migrations/index.js';
import { connectPostgres } from '../../src/store/postgres/connect.js';
import { connectSqlite } from '../../src/store/sqlite/connect.js';

/** PostgreSQL 15 runs here on every developer machine and in CI (the brief's ground truths). */
export const PG_URL = process.env.SMSGW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A fresh, migrated database of one engine for one test file: a temporary SQLite file, or a
 * PostgreSQL schema of its own that `drop()` removes.
 */
export interface TestDatabase {
  readonly engine: 'sqlite' | 'postgres';
  readonly conn: Connection;
  /** The same database as a config value, for starting a server process on it. */
  readonly config: DatabaseConfig;
  /** A URL for SMSGW_DATABASE_URL (postgres: with the schema in search_path). */
  readonly url: string;
  drop(): Promise<void>;
}

export const ENGINES = ['sqlite', 'postgres'] as const;

export async function createTestDatabase(engine: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-test-'));
    const path = join(dir, 'smsgw.sqlite');
    const conn = connectSqlite(path);
    await migrate(conn);
    return {
      engine,
      conn,
      config: { kind: 'sqlite', path },
      url: `sqlite:${path}`,
      async drop() {
        await conn.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const conn = connectPostgres(url);
  await migrate(conn);
  return {
    engine,
    conn,
    config: { kind: 'postgres', url },
    url,
    async drop() {
      await conn.close();
      const cleanup = new pg.Client({ connectionString: PG_URL });
      await cleanup.connect();
      await cleanup.query(`drop schema ${schema} cascade`);
      await cleanup.end();
    },
  };
}
