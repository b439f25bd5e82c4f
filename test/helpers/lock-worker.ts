/**
 * Work for a second thread in the write-lock tests: the same critical sections the main thread
 * runs, against the same shared memory and SQLite file.
 */
import { sql } from 'kysely';
import { connectSqlite } from '../../src/store/sqlite/connect.js';
import type { WriteLock } from '../../src/store/sqlite/write-lock.js';

/** Both threads start their loops together, so they really compete. */
export function meet(barrier: Int32Array): void {
  Atomics.add(barrier, 0, 1);
  while (Atomics.load(barrier, 0) < 2) Atomics.wait(barrier, 0, 1, 1);
}

/** Read a shared cell, dawdle, write it back plus one: only mutual exclusion keeps every increment. */
export function bumpSharedCell(lock: WriteLock, cell: Int32Array, times: number, barrier: Int32Array): void {
  meet(barrier);
  for (let i = 0; i < times; i++) {
    lock.acquire();
    const seen = cell[0]!;
    const until = performance.now() + 0.02;
    while (performance.now() < until) {
      // widen the window between read and write
    }
    cell[0] = seen + 1;
    lock.release();
  }
}

/** Read-then-write transactions on one row, as the engine's claims do. */
export async function bumpCounterRow(
  path: string,
  lock: WriteLock | undefined,
  times: number,
  barrier: Int32Array,
): Promise<void> {
  const conn = connectSqlite(path, lock ? { writeLock: lock } : {});
  meet(barrier);
  try {
    for (let i = 0; i < times; i++) {
      await conn.db.transaction().execute(async (tx) => {
        const { rows } = await sql<{ n: number }>`select n from counter where id = 1`.execute(tx);
        await sql`update counter set n = ${rows[0]!.n + 1} where id = 1`.execute(tx);
      });
      // Writes outside a transaction take the lock too.
      await sql`insert into log (at) values (${i})`.execute(conn.db);
    }
  } finally {
    await conn.close();
  }
}

/**
 * Takes the lock, says so (state 1) and holds it until told to let go (state 2), or for
 * `maxMs` at most, so a thread that cannot tell it (its event loop blocked) is not stuck forever.
 */
export function holdUntilTold(lock: WriteLock, state: Int32Array, maxMs: number): void {
  lock.acquire();
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
  Atomics.wait(state, 0, 1, maxMs);
  lock.release();
}
