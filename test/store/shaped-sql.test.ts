import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRows, insertRowsReturning, sqliteChunks } from '../../src/store/insert-rows.js';
import { list, rows, runShaped } from '../../src/store/shaped-sql.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';

/**
 * The hot statements' forms: IN lists and tables of rows are placeholders on SQLite and arrays
 * on PostgreSQL, inserts are multi-row VALUES or an array per column; the answers are the same.
 */
describe.each(ENGINES)('shaped SQL on %s', (engineName) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    const nodes = Array.from({ length: 600 }, (_, i) => [`n${i}`, 'h\'ost "quoted" ü', i, i, 1000 + i]);
    await insertRows(db.conn.db, 'nodes', ['id', 'host', 'pid', 'started_at', 'heartbeat_at'], nodes);
  });
  afterAll(async () => db.drop());

  const beats = async (ids: string[]) => {
    const { rows: found } = await runShaped<{ id: string; heartbeat_at: number | string }>(
      db.conn.db,
      'test-beats',
      (p) => `select "id", "heartbeat_at" from "nodes" where "id" ${p.in()} order by "pid"`,
      [list(ids)],
    );
    return found.map((r) => [r.id, Number(r.heartbeat_at)]);
  };

  it('an IN list of any length selects exactly its values, padding or not', async () => {
    expect(await beats(['n1'])).toEqual([['n1', 1001]]);
    expect(await beats(['n3', 'n1', 'n2'])).toEqual([
      ['n1', 1001],
      ['n2', 1002],
      ['n3', 1003],
    ]);
    expect(await beats(Array.from({ length: 500 }, (_, i) => `n${i}`))).toHaveLength(500);
  });

  it('keeps text exactly as given through the insert', async () => {
    const row = await db.conn.db.selectFrom('nodes').select('host').where('id', '=', 'n7').executeTakeFirst();
    expect(row?.host).toBe('h\'ost "quoted" ü');
  });

  it('keeps every value as given through the insert: array syntax, backslashes, nulls', async () => {
    const texts = ['{a,b}', 'back\\slash \\"', 'NULL', '', 'line\nbreak, comma', '(1,2)', ' spaced '];
    await insertRows(
      db.conn.db,
      'submit_attempts',
      ['recipient_id', 'connector', 'worker', 'started_at', 'finished_at', 'outcome', 'detail'],
      [
        ...texts.map((text, i) => [900_000 + i, text, 'w', 9_007_199_254_740_000, null, 'accepted', text]),
        [900_100, 'c', 'w', 1, 2, 'failed', null],
      ],
    );
    const back = await db.conn.db
      .selectFrom('submit_attempts')
      .select(['recipient_id', 'connector', 'started_at', 'finished_at', 'detail'])
      .where('recipient_id', '>=', 900_000)
      .orderBy('recipient_id')
      .execute();
    expect(
      back.map((r) => [r.recipient_id, r.connector, Number(r.started_at), r.finished_at, r.detail]),
    ).toEqual([
      ...texts.map((text, i) => [900_000 + i, text, 9_007_199_254_740_000, null, text]),
      [900_100, 'c', 1, 2, null],
    ]);
  });

  it('updates each row from its own values in a table of rows', async () => {
    await runShaped(
      db.conn.db,
      'test-rows',
      (p) => `with v (id, at) as (${p.rows(['text', 'bigint'])})
        update nodes set heartbeat_at = v.at from v where nodes.id = v.id`,
      [
        rows([
          ['n10', 5_000_000_000_000],
          ['n11', 7],
        ]),
      ],
    );
    expect(await beats(['n10', 'n11', 'n12'])).toEqual([
      ['n10', 5_000_000_000_000],
      ['n11', 7],
      ['n12', 1012],
    ]);
  });

  it('returns inserted rows numbered in the order given, across statements', async () => {
    // 300 rows: more than one statement on SQLite (128, 128, 32, 8, 4).
    const names = Array.from({ length: 300 }, (_, i) => `account-${i}`);
    const back = await insertRowsReturning<{ id: number; name: string }>(
      db.conn.db,
      'accounts',
      ['name', 'timezone', 'webhook_secret', 'created_at'],
      names.map((name) => [name, 'UTC', 's', 0]),
      ['id', 'name'],
    );
    const sorted = [...back].sort((x, y) => x.id - y.id).map((r) => r.name);
    expect(sorted).toEqual(names);
  });

  it('refuses an empty list rather than writing invalid SQL', () => {
    expect(() => list([])).toThrow();
    expect(() => rows([])).toThrow();
  });
});

describe('SQLite insert chunks', () => {
  it('cover every row once, in order, with few distinct sizes', () => {
    const sizes = new Set<number>();
    for (let count = 0; count <= 1_000; count++) {
      const chunks = sqliteChunks(count, 11);
      let next = 0;
      for (const [start, size] of chunks) {
        expect(start).toBe(next);
        next += size;
        sizes.add(size);
      }
      expect(next).toBe(count);
    }
    // Each distinct size is one more statement prepared per connection.
    expect([...sizes].sort((a, b) => a - b)).toEqual([1, 2, 4, 8, 16, 32, 64, 128]);
  });

  it('stay under the bind-parameter limit for wide rows', () => {
    for (const [, size] of sqliteChunks(5_000, 1_000)) expect(size * 1_000).toBeLessThanOrEqual(30_000);
  });
});
