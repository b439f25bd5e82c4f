/**
 * The engine thread's entry (see startEngineThread): its own connection to the database, the
 * carrier links, the sending engine and the webhook sender; the API thread only sends it
 * wake-ups.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../logger.js';
import type { LogLevel } from '../config/config.js';
import { connect } from '../store/connect.js';
import { attachWriteLock } from '../store/sqlite/write-lock.js';
import { createStore } from '../store/store.js';
import {
  bothInboundSinks,
  bothTransitionSinks,
  smppInboundSink,
  smppReceiptSink,
} from '../smpp-server/sinks.js';
import { createInboundSink, createReportSink } from '../webhooks/report-sink.js';
import {
  startCarrierEngine,
  type EngineThreadData,
  type FromEngineThread,
  type ToEngineThread,
} from './host.js';
import type { Engine } from './engine.js';
import { createSendRoom } from './send-room.js';
import { countRecipientsInto } from '../metrics/engine-metrics.js';
import { createThreadMetrics } from '../metrics/thread-metrics.js';

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
  const conn = connect(config.database, {
    writeLock: lock,
    writeLockWait: 'async',
    cacheMb: config.sqliteCacheMb,
    // The API thread runs the checkpointer beside every SQLite file it shares with this one.
    checkpointThread: lock !== undefined,
  });
  // Webhooks this thread's changes queue are held and sent here; any left unheld (no room)
  // wait for the engine's next claim.
  let engine: Engine | null = null;
  const webhooksQueued = () => engine?.wake(['webhooks']);
  // Counted here and read by the API thread at each scrape of /metrics.
  const metrics = createThreadMetrics();
  const store = createStore(conn, {
    // Webhooks and deliver_sm for SMPP customers (decisions §21) queue in the same transaction.
    transitionSink: bothTransitionSinks(createReportSink({ onQueued: webhooksQueued }), smppReceiptSink()),
    inboundSink: bothInboundSinks(createInboundSink({ onQueued: webhooksQueued }), smppInboundSink()),
    onEntered: countRecipientsInto(metrics.engine),
  });
  const started = await startCarrierEngine({
    config,
    store,
    logger,
    now: () => Date.now(),
    node: data.node,
    room: createSendRoom(data.room),
    deliveryRoom: createSendRoom(data.deliveryRoom),
    metrics: metrics.engine,
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  engine = started.engine;
  const { router } = started;
  port.on('message', (message: ToEngineThread) => {
    switch (message.type) {
      case 'wake':
        started.engine.wake(message.kinds ?? undefined);
        break;
      case 'sends':
        started.engine.adopt(message.work);
        break;
      case 'deliveries':
        started.engine.adoptDeliveries(message.held);
        break;
      case 'routing':
        void router?.reload();
        break;
      case 'states':
        post({ type: 'states', id: message.id, states: router?.states() ?? {} });
        break;
      case 'endpoints':
        post({ type: 'endpoints', id: message.id, endpoints: started.engine.webhookEndpoints() });
        break;
      case 'metrics':
        started.engine.observeConnectors();
        void metrics.snapshot().then((snapshot) => post({ type: 'metrics', id: message.id, snapshot }));
        break;
      case 'stop':
        void stop();
        break;
    }
  });
  const stop = async () => {
    try {
      await started.engine.stop();
      await store.close();
    } catch (error) {
      logger.error({ err: error }, 'engine stop failed');
    }
    post({ type: 'stopped' });
    port.close();
  };
  // A node that lost its lease must stop sending: the thread reports it as failed.
  void started.engine.failed.then(async (error) => {
    post({ type: 'failed', message: error.message });
    await started.engine.stop().catch(() => {});
    await store.close().catch(() => {});
    port.close();
  });
  post({ type: 'ready' });
}
