/**
 * One writer at a time across the threads of this process that share an SQLite file.
 *
 * SQLite serialises writers itself, but a connection that finds the file locked sleeps in its
 * busy handler (1, 2, 5, 10 … ms) and blocks its thread meanwhile: with the sending engine in a
 * thread of its own, API requests stalled for milliseconds behind every engine transaction
 * (p99 66 ms in the ingest bench). A ticket lock in shared memory wakes the next writer the
 * moment the last one commits, and in the order they asked (neither thread starves the other).
 * SQLite's own lock stays the real guard: this only decides who asks it first.
 *
 * A thread may first wait for the lock to be free without blocking (`whenFree`), its event loop
 * running meanwhile, and take its ticket only then. A ticket taken before such a wait would be
 * served while the thread may be busy with something else, and the lock would stand idle until
 * that ended.
 */
export interface WriteLock {
  /** Shared with the other thread (workerData), which attaches its own WriteLock to it. */
  readonly buffer: SharedArrayBuffer;
  /** Blocks this thread until it is this thread's turn. */
  acquire(): void;
  /**
   * Resolves once no thread holds the lock or queues for it, or once the holder of the moment
   * has let go: a thread is never starved by writers that follow each other closely, since its
   * acquire() then queues behind at most one that got in while it was waking up.
   */
  whenFree(): Promise<void>;
  /** Gives the lock back; nothing if this thread does not hold it (a thread going away calls it). */
  release(): void;
}

const NEXT = 0;
const SERVING = 1;
/** How long one wait lasts before the lock is checked again (and a stall is logged). */
const WAIT_SLICE_MS = 10_000;
/**
 * Atomics.waitAsync (Node.js 16 and later). TypeScript declares it in its ES2024 library only,
 * which would also let through APIs Node.js 20 lacks.
 */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      cells: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

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
    async whenFree() {
      const serving = Atomics.load(cells, SERVING);
      if (Atomics.load(cells, NEXT) === serving) return;
      const wait = waitAsync(cells, SERVING, serving, WAIT_SLICE_MS);
      if (!wait.async) return;
      // A pending waitAsync does not keep the event loop alive: a thread with nothing else to
      // do would exit before its transaction began. The timer does.
      const alive = setTimeout(() => {}, WAIT_SLICE_MS);
      try {
        await wait.value;
      } finally {
        clearTimeout(alive);
      }
    },
    release() {
      if (!held) return;
      held = false;
      Atomics.add(cells, SERVING, 1);
      Atomics.notify(cells, SERVING);
    },
  };
}
