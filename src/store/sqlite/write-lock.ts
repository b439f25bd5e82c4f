/**
 * One writer at a time across the threads of this process that share an SQLite file.
 *
 * SQLite serialises writers itself, but a connection that finds the file locked sleeps in its
 * busy handler (1, 2, 5, 10 … ms) and blocks its thread meanwhile: with the sending engine in a
 * thread of its own, API requests stalled for milliseconds behind every engine transaction
 * (p99 66 ms in the ingest bench). A ticket lock in shared memory wakes the next writer the
 * moment the last one commits, and in the order they asked (neither thread starves the other).
 * SQLite's own lock stays the real guard: this only decides who asks it first.
 */
export interface WriteLock {
  /** Shared with the other thread (workerData), which attaches its own WriteLock to it. */
  readonly buffer: SharedArrayBuffer;
  /** Blocks this thread until it is this thread's turn. */
  acquire(): void;
  /** Gives the lock back; nothing if this thread does not hold it (a thread going away calls it). */
  release(): void;
}

const NEXT = 0;
const SERVING = 1;
/** How long one wait lasts before the lock is checked again (and a stall is logged). */
const WAIT_SLICE_MS = 10_000;

export function createWriteLock(): WriteLock {
  return attachWriteLock(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

export function attachWriteLock(
  buffer: SharedArrayBuffer,
  onStall: (waitedMs: number) => void = () => {},
): WriteLock {
  const cells = new Int32Array(buffer);
  let held = false;
  return {
    buffer,
    acquire() {
      if (held) throw new Error('the SQLite write lock is not re-entrant');
      const ticket = Atomics.add(cells, NEXT, 1);
      let waited = 0;
      for (;;) {
        const serving = Atomics.load(cells, SERVING);
        if (serving === ticket) break;
        if (Atomics.wait(cells, SERVING, serving, WAIT_SLICE_MS) === 'timed-out') {
          waited += WAIT_SLICE_MS;
          onStall(waited);
        }
      }
      held = true;
    },
    release() {
      if (!held) return;
      held = false;
      Atomics.add(cells, SERVING, 1);
      Atomics.notify(cells, SERVING);
    },
  };
}
