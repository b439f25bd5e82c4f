/**
 * The checkpointer's thread (see startCheckpointer): a connection of its own that copies the
 * WAL back into the database file now and then, so that no writer's commit does it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { CheckpointThreadData, FromCheckpointThread } from './checkpointer.js';
import { attachWriteLock } from './write-lock.js';

const { path, intervalMs, writeLock, restartFrames } = workerData as CheckpointThreadData;
const port = parentPort!;
const post = (message: FromCheckpointThread) => port.postMessage(message);
const lock = attachWriteLock(writeLock);
// A thread that ends while holding the lock must not leave the writers waiting for their turn.
process.on('exit', () => lock.release());

const db = new BetterSqlite3(path, { fileMustExist: true });
const passive = db.prepare('pragma wal_checkpoint(PASSIVE)');
type Result = { busy: number; log: number; checkpointed: number };

let copied = -1;
let lastFrames = -1;
const checkpoint = () => {
  const started = performance.now();
  // PASSIVE neither waits for nor blocks readers and writers: it copies the frames no reader
  // still needs, up to the last commit it sees.
  let result = passive.get() as Result;
  // The WAL starts over from its beginning only at a write that finds every frame copied. The
  // result counts the frames there were when the copy began; writers that never pause add more
  // meanwhile, so that moment never comes, and the WAL would grow until a writer's own
  // checkpoint (the backstop: 165 MB in the harness's max-final, where a writer checkpointing
  // every 10,000 frames kept it at 42). Holding the writers back, the same call copies only
  // what they wrote meanwhile, and the next write starts the WAL over. Writers idle since the
  // last look added nothing meanwhile: the WAL is all copied now, and their next write starts
  // it over without help.
  let lockedMs = 0;
  if (result.log >= restartFrames && result.log !== lastFrames) {
    lock.acquire();
    const held = performance.now();
    try {
      result = passive.get() as Result;
    } finally {
      lock.release();
      lockedMs = performance.now() - held;
    }
  }
  lastFrames = result.log;
  if (result.checkpointed === copied) return;
  copied = result.checkpointed;
  post({
    type: 'checkpoint',
    frames: result.log,
    copied: result.checkpointed,
    ms: performance.now() - started,
    lockedMs,
  });
};
const timer = setInterval(checkpoint, intervalMs);
port.on('message', (message: 'stop') => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  port.close();
});
