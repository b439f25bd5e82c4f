import { execFile } from 'node:child_process';
import { closeSync, copyFileSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectSqlite } from '../../src/store/sqlite/connect.js';
import {
  startCheckpointer,
  type CheckpointResult,
  type Checkpointer,
} from '../../src/store/sqlite/checkpointer.js';
import { createWriteLock, type WriteLock } from '../../src/store/sqlite/write-lock.js';
import type { Connection } from '../../src/store/dialect.js';
import { until } from '../helpers/until.js';

/**
 * With a checkpointer thread, the server's connections leave the WAL alone (but for a backstop
 * far away) and the thread copies it into the database file: what is committed reaches the file
 * without any writer's commit paying for it.
 */
describe('SQLite checkpointer thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'smsgw-checkpoint-'));
  let conn: Connection | null = null;
  let checkpointer: Checkpointer | null = null;
  afterEach(async () => {
    await checkpointer?.stop();
    await conn?.close();
    checkpointer = null;
    conn = null;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** 2,000 rows of 200 bytes, committed by a connection that leaves checkpoints to the thread. */
  async function write(path: string, writeLock?: WriteLock): Promise<void> {
    conn = connectSqlite(path, { checkpointThread: true, writeLock });
    await sql`create table notes (id integer primary key, body text not null)`.execute(conn.db);
    await conn.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 2000; i += 500) {
        const values = Array.from({ length: 500 }, (_, j) => sql`(${i + j}, ${'x'.repeat(200)})`);
        await sql`insert into notes (id, body) values ${sql.join(values)}`.execute(tx);
      }
    });
  }

  /** The WAL header's checkpoint sequence: one more each time the WAL starts over. */
  function walStarts(path: string): number {
    const header = Buffer.alloc(16);
    const fd = openSync(`${path}-wal`, 'r');
    try {
      readSync(fd, header, 0, 16, 0);
    } finally {
      closeSync(fd);
    }
    return header.readUInt32BE(12);
  }

  /** The rows the database file alone holds, its WAL left behind. */
  function rowsInFileAlone(path: string, name: string): number {
    const copy = join(dir, name);
    copyFileSync(path, copy);
    const db = new BetterSqlite3(copy);
    try {
      const table = db.prepare("select count(*) as n from sqlite_schema where name = 'notes'").get() as {
        n: number;
      };
      if (table.n === 0) return 0;
      return (db.prepare('select count(*) as n from notes').get() as { n: number }).n;
    } finally {
      db.close();
    }
  }

  it('copies committed rows into the database file', async () => {
    const path = join(dir, 'with.sqlite');
    const writeLock = createWriteLock();
    await write(path, writeLock);
    const results: CheckpointResult[] = [];
    checkpointer = startCheckpointer(path, {
      logger: pino({ level: 'silent' }),
      writeLock,
      intervalMs: 20,
      onCheckpoint: (result) => results.push(result),
    });
    const seen = await until(
      () => Promise.resolve(results.at(-1)),
      (last) => last !== undefined && last.copied === last.frames,
    );
    expect(seen?.frames).toBeGreaterThan(0);
    expect(rowsInFileAlone(path, 'with-copy.sqlite')).toBe(2000);
  });

  it('lets the WAL start over while writers keep writing', async () => {
    const path = join(dir, 'busy.sqlite');
    const writeLock = createWriteLock();
    await write(path, writeLock);
    checkpointer = startCheckpointer(path, {
      logger: pino({ level: 'silent' }),
      writeLock,
      intervalMs: 5,
      restartFrames: 100,
    });
    // Back-to-back transactions, as the engine's under load: a checkpoint beside them seldom
    // finds the WAL all copied, which it must for the next write to start the WAL over; one
    // that holds them back for the last frames always does.
    const first = walStarts(path);
    const deadline = Date.now() + 15_000;
    for (let id = 2000; walStarts(path) < first + 2 && Date.now() < deadline; id++) {
      await conn!.db.transaction().execute(async (tx) => {
        await sql`insert into notes (id, body) values (${id}, ${'y'.repeat(2000)})`.execute(tx);
      });
    }
    expect(walStarts(path) - first).toBeGreaterThanOrEqual(2);
  });

  it('is what moves them there: the writers alone leave them in the WAL', async () => {
    const path = join(dir, 'without.sqlite');
    await write(path);
    expect(rowsInFileAlone(path, 'without-copy.sqlite')).toBe(0);
  });

  it('holds a process that awaits stop() until the thread has closed', async () => {
    // A process with nothing else to wait for: the thread's timer alone must neither keep it
    // alive nor, once stop() is awaited at the top level, let it end before the thread has.
    const path = join(dir, 'stop.sqlite');
    const script = `
      import pino from 'pino';
      import { connectSqlite } from './src/store/sqlite/connect.ts';
      import { startCheckpointer } from './src/store/sqlite/checkpointer.ts';
      import { createWriteLock } from './src/store/sqlite/write-lock.ts';
      const writeLock = createWriteLock();
      const conn = connectSqlite(${JSON.stringify(path)}, { writeLock, checkpointThread: true });
      await conn.close();
      const checkpointer = startCheckpointer(${JSON.stringify(path)}, { logger: pino({ level: 'silent' }), writeLock });
      await checkpointer.stop();
      console.log('stopped');`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: resolve(import.meta.dirname, '../..') },
    );
    expect(stdout.trim()).toBe('stopped');
  });
});
