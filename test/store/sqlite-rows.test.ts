import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSqlite } from '../../src/store/sqlite/connect.js';
import type { Connection } from '../../src/store/dialect.js';

/** Rows come back through our own row builder: they must be what better-sqlite3 itself returns. */
describe('SQLite rows as the store reads them', () => {
  let dir: string;
  let conn: Connection;
  let plain: BetterSqlite3.Database;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'smsgw-rows-'));
    const path = join(dir, 'rows.sqlite');
    conn = connectSqlite(path);
    await sql`create table t (id integer primary key, name text, n integer, x real, b blob)`.execute(conn.db);
    await sql`insert into t (name, n, x, b) values ('a', 1, 1.5, x'00ff'), (null, null, null, null), ('c', 9007199254740991, -0.25, x'')`.execute(
      conn.db,
    );
    plain = new BetterSqlite3(path, { readonly: true });
  });
  afterAll(async () => {
    plain.close();
    await conn.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const queries = [
    'select * from t order by id',
    'select name as "x", n as "x", id from t order by id',
    'select id, name as "weird key ""quoted"" \\", n + 1 as "1" from t order by id',
    'select count(*) as c from t',
    // better-sqlite3 itself sets the prototype for such a column; ours falls back to its objects.
    'select name as "__proto__", id from t order by id',
    'select * from t where id < 0',
  ];

  it.each(queries)('%s', async (query) => {
    const ours = await sql.raw(query).execute(conn.db);
    const theirs = plain.prepare(query).all();
    expect(ours.rows).toStrictEqual(theirs);
    for (const [i, row] of ours.rows.entries()) {
      expect(Object.keys(row as object)).toEqual(Object.keys(theirs[i] as object));
      expect(Object.getPrototypeOf(row)).toBe(Object.getPrototypeOf(theirs[i]));
    }
  });

  it('RETURNING rows too', async () => {
    const { rows } = await sql<{
      id: number;
      name: string;
    }>`update t set n = n where name = 'a' returning id, name`.execute(conn.db);
    expect(rows).toStrictEqual([{ id: 1, name: 'a' }]);
  });
});
