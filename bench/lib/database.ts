import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

export const ENGINES = ['sqlite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];

/** The PostgreSQL the tests use; a bench gets a schema of its own in it. */
export const PG_URL = process.env.SMSGW_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * An empty database for one bench run: a SQLite file in a temporary directory, or a fresh
 * PostgreSQL schema. The server migrates it on start; `drop()` removes it afterwards.
 * (The same idea as test/helpers/engines.ts, kept separate so bench/ never imports test/.)
 */
export interface BenchDatabase {
  readonly engine: Engine;
  /** For SMSGW_DATABASE_URL (postgres: with the schema in search_path). */
  readonly url: string;
  /** SQLite: the file; PostgreSQL: the schema name. */
  readonly location: string;
  /** A single number read with SQL of the bench's own (e.g. how much work the outbox holds). */
  scalar(sql: string): Promise<number>;
  drop(): Promise<void>;
}

export async function createBenchDatabase(engine: Engine): Promise<BenchDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-bench-'));
    const path = join(dir, 'smsgw.sqlite');
    let reader: BetterSqlite3.Database | null = null;
    return {
      engine,
      url: `sqlite:${path}`,
      location: path,
      async scalar(sql) {
        reader ??= new BetterSqlite3(path, { readonly: true });
        return Number(reader.prepare(sql).pluck().get());
      },
      async drop() {
        reader?.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  await adminQuery(`create schema ${schema}`);
  const url = `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  let reader: pg.Client | null = null;
  return {
    engine,
    url,
    location: schema,
    async scalar(sql) {
      if (!reader) {
        reader = new pg.Client({ connectionString: url });
        await reader.connect();
      }
      const { rows } = await reader.query<Record<string, unknown>>(sql);
      return Number(Object.values(rows[0] ?? {})[0]);
    },
    async drop() {
      await reader?.end();
      await adminQuery(`drop schema ${schema} cascade`);
    },
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
