/** The checkpoint thread (src/store/sqlite/checkpoints.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { checkpoint, type CheckpointThreadData, type FromCheckpointThread } from './checkpoints.js';
import { attachWriteLock } from './write-lock.js';

const data = workerData as CheckpointThreadData;
const port = parentPort!;
const lock = attachWriteLock(data.writeLock);
// A thread ended between the two steps must not leave the other threads waiting for their turn.
process.on('exit', () => lock.release());
const raw = new BetterSqlite3(data.path, { fileMustExist: true });
raw.pragma('busy_timeout = 5000');
raw.pragma('synchronous = NORMAL');

const timer = setInterval(() => {
  try {
    checkpoint(raw, lock);
  } catch (error) {
    const message: FromCheckpointThread = {
      type: 'failed',
      message: error instanceof Error ? error.message : String(error),
    };
    port.postMessage(message);
  }
}, data.intervalMs);

const ready: FromCheckpointThread = { type: 'ready' };
port.postMessage(ready);

port.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  raw.close();
  port.close();
});
