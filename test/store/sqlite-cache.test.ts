import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectSqlite } from '../../src/store/sqlite/connect.js';
import type { Connection } from '../../src/store/dialect.js';

/** SMSGW_SQLITE_CACHE_MB bounds the memory each SQLite connection keeps of the file. */
describe('SQLite page cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'smsgw-cache-'));
  let conn: Connection | null = null;
  afterEach(async () => {
    await conn?.close();
    conn = null;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cacheKib(options: { cacheMb?: number }): Promise<number> {
    conn = connectSqlite(join(dir, 'cache.sqlite'), options);
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(conn.db);
    // SQLite reports a size set in KiB as a negative number.
    return -rows[0]!.cache_size;
  }

  it('is 8 MB unless set', async () => {
    expect(await cacheKib({})).toBe(8 * 1024);
  });

  it('takes the size it is given', async () => {
    expect(await cacheKib({ cacheMb: 32 })).toBe(32 * 1024);
  });
});
