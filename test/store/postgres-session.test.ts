import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres } from '../../src/store/postgres/connect.js';
import { analyzeOutgrownTables } from '../../src/store/postgres/statistics.js';
import type { Connection } from '../../src/store/dialect.js';
import { adminQuery, PG_URL } from '../helpers/engines.js';

async function setting(conn: Connection, name: string): Promise<string> {
  const { rows } = await sql<{ value: string }>`select current_setting(${name}) as value`.execute(conn.db);
  return rows[0]!.value;
}

describe('PostgreSQL sessions', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const open: Connection[] = [];
  const connectWith = (options: string, poolSize?: number) => {
    const conn = connectPostgres(`${PG_URL}?options=${encodeURIComponent(options)}`, poolSize);
    open.push(conn);
    return conn;
  };
  beforeAll(() => adminQuery(`create schema ${schema}`));
  afterAll(async () => {
    for (const conn of open) await conn.close();
    await adminQuery(`drop schema ${schema} cascade`);
  });

  it('plan for a working set in memory, without JIT', async () => {
    const conn = connectWith(`-c search_path=${schema}`);
    expect(await setting(conn, 'jit')).toBe('off');
    expect(await setting(conn, 'random_page_cost')).toBe('1.1');
    expect(await setting(conn, 'search_path')).toBe(schema);
  });

  it("keep the operator's own settings from the URL over smsgw's", async () => {
    const conn = connectWith(`-c search_path=${schema} -c random_page_cost=2`);
    expect(await setting(conn, 'random_page_cost')).toBe('2');
    expect(await setting(conn, 'jit')).toBe('off');
  });

  it('analyze a table once it has outgrown its statistics, and not again until it doubles', async () => {
    // One connection, so the statistics this session counts are the ones flushed below.
    const conn = connectWith(`-c search_path=${schema}`, 1);
    const grow = async (rows: number) => {
      await sql`insert into queue (n) select g from generate_series(1, ${rows}) g`.execute(conn.db);
      // Counts reach the shared statistics when the session next goes idle, at most once a second.
      await sql`select pg_stat_force_next_flush()`.execute(conn.db);
    };
    // Autovacuum stays out of it: its own analyze would make the counts below its, not ours.
    await sql`create table queue (n integer) with (autovacuum_enabled = false)`.execute(conn.db);
    const analyzedAt = async () => {
      const { rows } = await sql<{ at: Date | null }>`
        select last_analyze as at from pg_stat_user_tables
        where schemaname = current_schema() and relname = 'queue'`.execute(conn.db);
      return rows[0]?.at ?? null;
    };

    await grow(500);
    expect(await analyzeOutgrownTables(conn.db)).toEqual([]);
    await grow(2_000);
    expect(await analyzeOutgrownTables(conn.db)).toEqual(['queue']);
    expect(await analyzedAt()).not.toBeNull();
    // 2,500 rows now: another 1,000 is autovacuum's business (10 %), not a doubling.
    await grow(1_000);
    expect(await analyzeOutgrownTables(conn.db)).toEqual([]);
    await grow(2_000);
    expect(await analyzeOutgrownTables(conn.db)).toEqual(['queue']);
  });

  it('analyze an outgrown table once when several nodes pass at the same moment', async () => {
    const conn = connectWith(`-c search_path=${schema}`, 1);
    await sql`create table burst (n integer) with (autovacuum_enabled = false)`.execute(conn.db);
    await sql`insert into burst (n) select g from generate_series(1, 5000) g`.execute(conn.db);
    await sql`select pg_stat_force_next_flush()`.execute(conn.db);
    const analyzeCount = async () => {
      const { rows } = await sql<{ n: string }>`
        select analyze_count as n from pg_stat_user_tables
        where schemaname = current_schema() and relname = 'burst'`.execute(conn.db);
      return Number(rows[0]?.n ?? 0);
    };

    // Three nodes' keepers, each on its own connection, all due at once.
    const nodes = [1, 2, 3].map(() => connectWith(`-c search_path=${schema}`, 1));
    const passes = await Promise.all(nodes.map((node) => analyzeOutgrownTables(node.db)));

    expect(passes.flat().filter((t) => t === 'burst')).toEqual(['burst']);
    expect(await analyzeCount()).toBe(1);
    // And a pass after them finds nothing left to do.
    expect(await analyzeOutgrownTables(nodes[0]!.db)).not.toContain('burst');
  });

  it('leave a table this role may not analyze to autovacuum', async () => {
    const role = `r_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`create role ${role} login`);
      await client.query(`grant usage on schema ${schema} to ${role}`);
      await client.query(`create table ${schema}.theirs (n integer) with (autovacuum_enabled = false)`);
      await client.query(`insert into ${schema}.theirs select g from generate_series(1, 3000) g`);
      await client.query('select pg_stat_force_next_flush()');
      const url = new URL(PG_URL);
      url.username = role;
      url.searchParams.set('options', `-c search_path=${schema}`);
      const theirs = connectPostgres(url.toString(), 1);
      open.push(theirs);
      expect(await analyzeOutgrownTables(theirs.db)).not.toContain('theirs');
      const owner = connectWith(`-c search_path=${schema}`);
      expect(await analyzeOutgrownTables(owner.db)).toContain('theirs');
    } finally {
      await client.query(`drop table if exists ${schema}.theirs`);
      await client.query(`revoke usage on schema ${schema} from ${role}`).catch(() => undefined);
      await client.query(`drop role if exists ${role}`);
      await client.end();
    }
  });
});
