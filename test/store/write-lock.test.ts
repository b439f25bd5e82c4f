import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { connectSqlite } from '../../src/store/sqlite/connect.js';
import { attachWriteLock, createWriteLock } from '../../src/store/sqlite/write-lock.js';
import { bumpCounterRow, bumpSharedCell } from '../helpers/lock-worker.js';
import { until } from '../helpers/until.js';

const HELPER = new URL('../helpers/lock-worker.ts', import.meta.url).href;

/** Runs one of lock-worker.ts's functions in a second thread (TypeScript via tsx's loader). */
function inThread(call: string, workerData: Record<string, unknown>): Promise<void> {
  const source = `
    const { workerData } = require('node:worker_threads');
    import('tsx/esm/api').then(async (tsx) => {
      tsx.register();
      const helper = await import(${JSON.stringify(HELPER)});
      const { attachWriteLock } = await import(${JSON.stringify(new URL('../../src/store/sqlite/write-lock.ts', import.meta.url).href)});
      const lock = workerData.lock ? attachWriteLock(workerData.lock) : undefined;
      await (${call});
    });`;
  const worker = new Worker(source, { eval: true, workerData });
  return new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with ${code}`))));
  });
}

describe('the SQLite write lock shared by the API and engine threads', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('lets one thread at a time into its critical section', async () => {
    const lock = createWriteLock();
    const cell = new Int32Array(new SharedArrayBuffer(4));
    const times = 3_000;
    const barrier = new Int32Array(new SharedArrayBuffer(4));
    const other = inThread(
      'helper.bumpSharedCell(lock, new Int32Array(workerData.cell), workerData.times, new Int32Array(workerData.barrier))',
      { lock: lock.buffer, cell: cell.buffer, times, barrier: barrier.buffer },
    );
    // The other thread is still loading: wait for it here without blocking its 'error' event.
    await new Promise((resolve) => setTimeout(resolve, 10));
    bumpSharedCell(lock, cell, times, barrier);
    await other;
    expect(cell[0]).toBe(2 * times);
  });

  it('is released by release() only once, and release() without holding it does nothing', () => {
    const lock = createWriteLock();
    lock.release();
    lock.acquire();
    expect(() => lock.acquire()).toThrow(/re-entrant/);
    lock.release();
    lock.release();
    // A second handle on the same memory (another thread's view) gets its turn at once.
    const other = attachWriteLock(lock.buffer);
    other.acquire();
    other.release();
    lock.acquire();
    lock.release();
  });

  it("waiting asynchronously, keeps a thread's event loop running while its transaction waits for the other thread's", async () => {
    const path = await counterFile();
    const lock = createWriteLock();
    const state = new Int32Array(new SharedArrayBuffer(4));
    const holder = inThread('helper.holdUntilTold(lock, new Int32Array(workerData.state), 5000)', {
      lock: lock.buffer,
      state: state.buffer,
    });
    expect(
      await until(
        async () => Atomics.load(state, 0),
        (held) => held === 1,
      ),
    ).toBe(1);
    const conn = connectSqlite(path, { writeLock: lock, writeLockWait: 'async' });
    const seen: string[] = [];
    try {
      const transaction = conn.db.transaction().execute(async (tx) => {
        seen.push('transaction');
        await sql`update counter set n = n + 1`.execute(tx);
      });
      // Runs only if this thread is not blocked behind the other thread's lock; it lets go then.
      setTimeout(() => {
        seen.push('timer');
        Atomics.store(state, 0, 2);
        Atomics.notify(state, 0);
      }, 0);
      await transaction;
      await holder;
      expect(seen).toEqual(['timer', 'transaction']);
      const { rows } = await sql<{ n: number }>`select n from counter`.execute(conn.db);
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await conn.close();
    }
  });

  it('is taken for every write outside a transaction, RETURNING ones too, and never for reads', async () => {
    const path = await counterFile();
    const inner = createWriteLock();
    let taken = 0;
    const lock = {
      buffer: inner.buffer,
      acquire: () => {
        taken += 1;
        inner.acquire();
      },
      release: () => inner.release(),
      whenFree: () => inner.whenFree(),
    };
    const conn = connectSqlite(path, { writeLock: lock });
    try {
      await sql`select n from counter`.execute(conn.db);
      expect(taken).toBe(0);
      await sql`update counter set n = n + 1`.execute(conn.db);
      expect(taken).toBe(1);
      const { rows } = await sql<{ n: number }>`update counter set n = n + 1 returning n`.execute(conn.db);
      expect(rows).toEqual([{ n: 2 }]);
      expect(taken).toBe(2);
      await conn.db.transaction().execute(async (tx) => {
        await sql`select n from counter`.execute(tx);
        await sql`update counter set n = n + 1 returning n`.execute(tx);
      });
      expect(taken).toBe(3);
    } finally {
      await conn.close();
    }
  });

  async function counterFile(): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-lock-'));
    dirs.push(dir);
    const path = join(dir, 'lock.sqlite');
    const setup = connectSqlite(path);
    await sql`create table counter (id integer primary key, n integer not null)`.execute(setup.db);
    await sql`create table log (at integer not null)`.execute(setup.db);
    await sql`insert into counter (id, n) values (1, 0)`.execute(setup.db);
    await setup.close();
    return path;
  }

  /** Both threads bump the counter `times` times in read-then-write transactions. */
  async function bumpFromTwoThreads(path: string, lock: ReturnType<typeof createWriteLock> | undefined) {
    const times = 300;
    const barrier = new Int32Array(new SharedArrayBuffer(4));
    await Promise.all([
      inThread(
        'helper.bumpCounterRow(workerData.path, lock, workerData.times, new Int32Array(workerData.barrier))',
        {
          lock: lock?.buffer ?? null,
          path,
          times,
          barrier: barrier.buffer,
        },
      ),
      bumpCounterRow(path, lock, times, barrier),
    ]);
    const check = connectSqlite(path);
    const { rows } = await sql<{ n: number }>`select n from counter where id = 1`.execute(check.db);
    const logged = await sql<{ c: number }>`select count(*) as c from log`.execute(check.db);
    await check.close();
    return { counted: rows[0]!.n, logged: logged.rows[0]!.c, expected: 2 * times };
  }

  it('two threads writing one file in read-then-write transactions lose nothing and never fail', async () => {
    const { counted, logged, expected } = await bumpFromTwoThreads(await counterFile(), createWriteLock());
    expect(counted).toBe(expected);
    expect(logged).toBe(expected);
  });

  it('without the shared lock (the CLI beside a server) transactions still wait their turn', async () => {
    const { counted, logged, expected } = await bumpFromTwoThreads(await counterFile(), undefined);
    expect(counted).toBe(expected);
    expect(logged).toBe(expected);
  });
});
