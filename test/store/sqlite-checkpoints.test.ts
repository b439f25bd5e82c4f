import { mkdtempSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { startCheckpoints, SAFETY_NET_PAGES } from '../../src/store/sqlite/checkpoints.js';
import { connectSqlite } from '../../src/store/sqlite/connect.js';
import { createWriteLock } from '../../src/store/sqlite/write-lock.js';

/**
 * The WAL's checkpoint sequence number (header bytes 12–15, big-endian): SQLite adds one each
 * time the WAL starts over from its beginning, which it does only once a checkpoint copied all
 * of it back.
 */
function walRestarts(path: string): number {
  const fd = openSync(`${path}-wal`, 'r');
  try {
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    return header.readUInt32BE(12);
  } finally {
    closeSync(fd);
  }
}

describe('SQLite checkpoints in a thread of their own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'smsgw-checkpoints-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("leave the server's connections only a far safety net of their own", async () => {
    const conn = connectSqlite(join(dir, 'net.sqlite'), { checkpointThread: true });
    const own = connectSqlite(join(dir, 'own.sqlite'));
    try {
      const pages = async (c: typeof conn) =>
        (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(c.db)).rows[0]!
          .wal_autocheckpoint;
      expect(await pages(conn)).toBe(SAFETY_NET_PAGES);
      expect(await pages(own)).toBe(10_000);
    } finally {
      await conn.close();
      await own.close();
    }
  });

  it('let the WAL start over while writers keep writing', async () => {
    const path = join(dir, 'busy.sqlite');
    const lock = createWriteLock();
    // The writer as the server's threads write: WAL, the safety net, the shared lock.
    const writer = new BetterSqlite3(path);
    writer.pragma('journal_mode = WAL');
    writer.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
    writer.exec('create table t (id integer primary key, body blob)');
    const insert = writer.prepare('insert into t (body) values (?)');
    const body = Buffer.alloc(100, 7);
    const write = () => {
      lock.acquire();
      try {
        writer.transaction(() => {
          for (let i = 0; i < 20; i++) insert.run(body);
        })();
      } finally {
        lock.release();
      }
    };
    write();
    const before = walRestarts(path);
    const checkpoints = startCheckpoints(path, lock, pino({ level: 'silent' }), 10);
    await checkpoints.ready;
    try {
      // Transactions back to back, the event loop turning between them (so the lock changes hands)
      // but never idle, until the WAL has started over twice: at most 2,000 of them, a few
      // thousand pages, well below the safety net, so only the thread can have copied them back.
      let transactions = 0;
      while (walRestarts(path) < before + 2 && transactions < 2_000) {
        write();
        transactions += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(walRestarts(path)).toBeGreaterThanOrEqual(before + 2);
      expect(transactions).toBeGreaterThan(0);
      const rows = writer.prepare('select count(*) as n from t').get() as { n: number };
      expect(rows.n).toBe(20 * (transactions + 1));
    } finally {
      await checkpoints.stop();
      writer.close();
    }
  });
});
