import type { Logger } from 'pino';
import { spawnThread } from '../../spawn-thread.js';
import type { WriteLock } from './write-lock.js';

/**
 * A WAL checkpoint copies the pages changed since the last one back into the database file.
 * Left to SQLite, the commit that takes the WAL past wal_autocheckpoint pages does it, on the
 * thread that committed and while that thread still holds the write lock (src/store/sqlite/
 * write-lock.ts): in the side-by-side harness's max-final, 24 of the engine thread's 2,397
 * commits took 621 ms of its 1,024 ms of commits, and 39 of the API thread's took 438 ms, a
 * 62 ms stall at worst for the POSTs queued behind it. A thread of its own does it instead,
 * beside the writers, and holds them back only to copy the last few frames once the WAL is
 * long enough to start over (src/store/sqlite/checkpoint-thread.ts).
 */
export interface Checkpointer {
  /** Stops the thread; its connection closes, and the last connection to close checkpoints. */
  stop(): Promise<void>;
}

export interface CheckpointResult {
  /** Frames in the WAL. */
  readonly frames: number;
  /** Of those, how many are now in the database file. */
  readonly copied: number;
  readonly ms: number;
  /** Of that, how long the writers were held back (0 unless the WAL was to start over). */
  readonly lockedMs: number;
}

export interface CheckpointerOptions {
  readonly logger: Logger;
  /** The writers' lock, held while the last frames are copied so that the WAL can start over. */
  readonly writeLock: WriteLock;
  /** How often it looks (default CHECKPOINT_INTERVAL_MS). */
  readonly intervalMs?: number;
  /** How long the WAL grows before it starts over (default RESTART_FRAMES). */
  readonly restartFrames?: number;
  /** Told after each checkpoint that copied something. */
  readonly onCheckpoint?: (result: CheckpointResult) => void;
}

/**
 * At the harness's highest rates the writers add about 12,000 frames a second, about what the
 * writers' own checkpoints copied each time (every 10,000 pages, src/store/sqlite/connect.ts).
 * A page changed many times between two checkpoints is copied once, so much shorter would copy
 * the same hot pages more often.
 */
export const CHECKPOINT_INTERVAL_MS = 1000;

/**
 * Frames past which the thread holds the writers back for the last few, so that the WAL starts
 * over. Checked once a second, at the harness's highest rates (12,000 frames a second) the WAL
 * reached 65 MB at 10,000 and 49–50 MB at this figure, where the writers' own checkpoints (every
 * 10,000 pages, src/store/sqlite/connect.ts) had let it reach 42.
 */
export const RESTART_FRAMES = 4_000;

/** A checkpoint slower than this is logged as a warning: disk trouble, or a WAL that grew. */
const SLOW_CHECKPOINT_MS = 2000;

export interface CheckpointThreadData {
  readonly path: string;
  readonly intervalMs: number;
  readonly restartFrames: number;
  readonly writeLock: SharedArrayBuffer;
}

export type FromCheckpointThread = { type: 'checkpoint' } & CheckpointResult;

export function startCheckpointer(path: string, options: CheckpointerOptions): Checkpointer {
  const { logger } = options;
  const data: CheckpointThreadData = {
    path,
    intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
    restartFrames: options.restartFrames ?? RESTART_FRAMES,
    writeLock: options.writeLock.buffer,
  };
  const worker = spawnThread(import.meta.url, 'checkpoint-thread', { workerData: data });
  // Ended on its own or by stop(): either way the writers' own checkpoints (their backstop)
  // keep the WAL bounded.
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', (error) =>
    logger.warn({ err: error }, 'SQLite checkpointer failed; writers checkpoint the WAL themselves'),
  );
  worker.on('message', (message: FromCheckpointThread) => {
    if (message.type !== 'checkpoint') return;
    const { type: _, ...result } = message;
    if (result.ms >= SLOW_CHECKPOINT_MS) logger.warn(result, 'slow SQLite checkpoint');
    else logger.debug(result, 'SQLite checkpoint');
    options.onCheckpoint?.(result);
  });
  // Its timer alone must not keep a process alive that has nothing else to do.
  worker.unref();
  return {
    async stop() {
      // Until it has closed its connection, though: awaited by nothing else, an unreferenced
      // thread's exit would end the process first (exit code 13, a top-level await unsettled).
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
