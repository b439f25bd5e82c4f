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

/** Runs one statement on a connection of its own as the test database's superuser. */
export async function adminQuery(query: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(query);
  } finally {
    await client.end();
  }
}

/** PG_URL with `schema` as the search path: smsgw's tables go there. */
export function schemaUrl(schema: string): string {
  return `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

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
  await adminQuery(`create schema ${schema}`);
  const url = schemaUrl(schema);
  const conn = connectPostgres(url);
  await migrate(conn);
  return {
    engine,
    conn,
    config: { kind: 'postgres', url },
    url,
    async drop() {
      await conn.close();
      await adminQuery(`drop schema ${schema} cascade`);
    },
  };
}
