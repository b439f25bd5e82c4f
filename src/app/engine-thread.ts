/**
 * The engine thread's entry (see startEngineThread): its own connection to the database, the
 * carrier links and the sending engine; the API thread only sends it wake-ups.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../logger.js';
import type { LogLevel } from '../config/config.js';
import { connect } from '../store/connect.js';
import { attachWriteLock } from '../store/sqlite/write-lock.js';
import { createStore } from '../store/store.js';
import { createReportSink } from '../webhooks/report-sink.js';
import {
  oncePerTurn,
  startCarrierEngine,
  type EngineThreadData,
  type FromEngineThread,
  type ToEngineThread,
} from './engine-host.js';

const data = workerData as EngineThreadData;
const port = parentPort!;
const post = (message: FromEngineThread) => port.postMessage(message);
const logger = createLogger(data.logLevel as LogLevel);
const lock =
  data.writeLock === null
    ? undefined
    : attachWriteLock(data.writeLock, (waitedMs) =>
        logger.warn({ waitedMs }, 'still waiting for the database write lock'),
      );
// A thread that dies inside a transaction must not leave the API thread waiting for its turn.
process.on('exit', () => lock?.release());

try {
  await run();
} catch (error) {
  post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  port.close();
}

async function run() {
  const { config } = data;
  const conn = connect(config.database, { writeLock: lock });
  // Webhooks are queued by this thread's status changes and sent by the API thread's runner.
  const store = createStore(conn, {
    transitionSink: createReportSink({ onQueued: oncePerTurn(() => post({ type: 'webhooks' })) }),
  });
  const { engine, router } = await startCarrierEngine({
    config,
    store,
    logger,
    now: () => Date.now(),
    workerId: data.workerId,
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  port.on('message', (message: ToEngineThread) => {
    switch (message.type) {
      case 'wake':
        engine.wake();
        break;
      case 'routing':
        void router?.reload();
        break;
      case 'states':
        post({ type: 'states', id: message.id, states: router?.states() ?? {} });
        break;
      case 'stop':
        void stop();
        break;
    }
  });
  const stop = async () => {
    try {
      await engine.stop();
      await store.close();
    } catch (error) {
      logger.error({ err: error }, 'engine stop failed');
    }
    post({ type: 'stopped' });
    port.close();
  };
  post({ type: 'ready' });
}
