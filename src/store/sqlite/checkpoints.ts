/**
 * WAL checkpoints in a thread of their own, off the API's and the engine's.
 *
 * SQLite's automatic checkpoint runs inside the COMMIT that pushes the WAL past its threshold,
 * on the committing thread and under the process's write lock: 50–80 ms every 10,000 pages,
 * during which the API thread answered nothing and the engine recorded nothing (in the
 * side-by-side harness's `mo` scenario, 2 commits of 578 took 81 of the engine's 243 ms of
 * commits). Here a thread with a connection of its own copies the WAL back in two steps: first
 * beside the writers (a PASSIVE checkpoint never waits for them), then, holding the write lock,
 * the few frames they wrote meanwhile. The second step is what lets the WAL start over at the
 * next write: with the first alone, a checkpoint never caught up with writers that kept writing
 * and the WAL only grew (test/store/sqlite-checkpoints.test.ts: no new start within 2,000
 * back-to-back transactions; with both steps, two within a few hundred). The
 * server's connections keep an automatic checkpoint at a much higher threshold
 * (SAFETY_NET_PAGES), should this thread fall behind or stop.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from 'pino';
import { startWorker } from '../../thread-worker.js';
import type { WriteLock } from './write-lock.js';

/** The automatic checkpoint of connections that leave checkpoints to this thread (about 200 MB). */
export const SAFETY_NET_PAGES = 50_000;
/** How often the thread checkpoints; each copies what the writers changed since the last. */
export const CHECKPOINT_INTERVAL_MS = 1_000;

export interface CheckpointThreadData {
  readonly path: string;
  readonly writeLock: SharedArrayBuffer;
  readonly intervalMs: number;
}

/** What the thread reports: its connection is open; a checkpoint failed (it goes on at the next). */
export type FromCheckpointThread =
  { readonly type: 'ready' } | { readonly type: 'failed'; readonly message: string };

interface CheckpointResult {
  readonly busy: number;
  /** Frames in the WAL. */
  readonly log: number;
  /** Of those, copied back into the database file. */
  readonly checkpointed: number;
}

/** One checkpoint in the two steps above; returns the second step's result. */
export function checkpoint(raw: BetterSqlite3.Database, lock: WriteLock): CheckpointResult {
  const [bulk] = raw.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
  // An empty WAL (nothing written since it started over) has nothing to catch up on.
  if (bulk === undefined || bulk.log <= 0) return bulk ?? { busy: 0, log: 0, checkpointed: 0 };
  lock.acquire();
  try {
    return (raw.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[])[0]!;
  } finally {
    lock.release();
  }
}

export interface Checkpoints {
  /** Resolves once the thread has its connection and its timer (or has stopped). */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

export function startCheckpoints(
  path: string,
  writeLock: WriteLock,
  logger: Logger,
  intervalMs = CHECKPOINT_INTERVAL_MS,
): Checkpoints {
  const log = logger.child({ component: 'checkpoints' });
  const data: CheckpointThreadData = { path, writeLock: writeLock.buffer, intervalMs };
  const worker = startWorker(import.meta.url, './checkpoint-thread', { workerData: data });
  let started = () => {};
  const ready = new Promise<void>((resolve) => (started = resolve));
  worker.on('message', (message: FromCheckpointThread) => {
    if (message.type === 'ready') started();
    else log.warn({ error: message.message }, 'WAL checkpoint failed; the next one is in a second');
  });
  // The server goes on without it: its connections still checkpoint at SAFETY_NET_PAGES.
  worker.on('error', (error) => log.error({ err: error }, 'the checkpoint thread stopped'));
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      started();
      resolve();
    }),
  );
  return {
    ready,
    async stop() {
      worker.postMessage('stop');
      await exited;
    },
  };
}
