/**
 * How many more submits the engine takes on now, shared between the engine and the API's
 * thread through shared memory. The API takes from it when it accepts a message due at once
 * and hands the recipients to the engine itself (src/store/messages.ts): they are written held
 * by this node, and the engine submits them without claiming them again (on PostgreSQL a claim
 * is one more non-HOT update of every recipient). What the API cannot take waits in the
 * database for a claim, as before.
 *
 * The count only moves by deltas (Atomics.add/sub), never by a store, so neither thread can
 * overwrite what the other took or gave back.
 */
export interface SendRoom {
  /** Takes up to `n`; returns how many were granted (0 when the engine is full). */
  take(n: number): number;
  /** Gives back room (submits recorded, a reservation not used, capacity grown). */
  give(n: number): void;
  /** The room now (may be negative just after the capacity shrank). */
  peek(): number;
  /** The shared memory, for the other thread's SendRoom. */
  readonly buffer: SharedArrayBuffer;
}

export function createSendRoom(buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)): SendRoom {
  const cell = new Int32Array(buffer);
  return {
    buffer,
    take(n) {
      if (n <= 0) return 0;
      const before = Atomics.sub(cell, 0, n);
      const granted = Math.max(0, Math.min(n, before));
      if (granted < n) Atomics.add(cell, 0, n - granted);
      return granted;
    },
    give(n) {
      if (n !== 0) Atomics.add(cell, 0, n);
    },
    peek: () => Atomics.load(cell, 0),
  };
}
