import type { Logger } from 'pino';
import { ensureBootstrapAccount } from './app/accounts.js';
import type { Config } from './config/config.js';
import { buildApp, type App } from './http/app.js';
import { connect } from './store/connect.js';
import { migrate } from './store/migrations/index.js';
import type { Store } from './store/port.js';
import { fileURLToPath } from 'node:url';
import { nodeIdentity, startEngineHere, startEngineThread, type SendingEngine } from './engine/host.js';
import { createSendRoom } from './engine/send-room.js';
import type { SendWork } from './store/engine-store.js';
import type { HeldDelivery } from './store/webhooks.js';
import { createWriteLock } from './store/sqlite/write-lock.js';
import { startCheckpointer } from './store/sqlite/checkpointer.js';
import { createStore } from './store/store.js';
import {
  bothInboundSinks,
  bothTransitionSinks,
  smppInboundSink,
  smppReceiptSink,
} from './smpp-server/sinks.js';
import { createInboundSink, createReportSink } from './webhooks/report-sink.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { countRecipientsInto } from './metrics/engine-metrics.js';
import { startCleaner } from './app/cleaner.js';
import { startStatisticsKeeper } from './store/postgres/statistics.js';
import { createMessageWriter } from './app/message-writer.js';
import { startSmppServer, type SmppServer } from './smpp-server/server.js';

export interface RunningServer {
  readonly app: App;
  readonly store: Store;
  /** Base address of the public API, e.g. http://localhost:8080/v1 */
  readonly baseUrl: string;
  /** A key created on this start for the bootstrap account, else null. */
  readonly bootstrapApiKey: string | null;
  /** Settles if the sending engine dies on its own: the server can no longer send. */
  readonly engineFailed: Promise<Error>;
  /** This node's metrics, served at /metrics. */
  readonly metrics: Metrics;
  /** The SMPP server for customers, when SMSGW_SMPP_SERVER_PORT is set (decisions §21). */
  readonly smpp: SmppServer | null;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** The built web console; default: dist/console of this package. */
  readonly consoleDir?: string;
}

/**
 * `npm run build` writes the console beside the compiled server: src/ and dist/ are siblings,
 * so this resolves to dist/console both from dist/server.js and from src/server.ts under tsx.
 */
const BUILT_CONSOLE = fileURLToPath(new URL('../dist/console/', import.meta.url));

/** The composition root: config → store → use cases → HTTP, and the sending engine (with webhooks). */
export async function startServer(
  config: Config,
  logger: Logger,
  options: ServerOptions = {},
): Promise<RunningServer> {
  const { database } = config;
  // The engine gets a thread and a connection of its own unless the database lives only in
  // this thread's memory.
  const ownThread = !(database.kind === 'sqlite' && database.path === ':memory:');
  const writeLock = ownThread && database.kind === 'sqlite' ? createWriteLock() : null;
  const conn = connect(database, {
    writeLock: writeLock ?? undefined,
    cacheMb: config.sqliteCacheMb,
    checkpointThread: writeLock !== null,
  });
  await migrate(conn, logger);
  // Once the file exists and is in WAL mode (the first connection and migrations see to it).
  const checkpointer =
    writeLock !== null && database.kind === 'sqlite'
      ? startCheckpointer(database.path, { logger, writeLock })
      : null;
  const statistics = database.kind === 'postgres' ? startStatisticsKeeper(conn.db, logger) : null;
  let engine: SendingEngine | null = null;
  const node = nodeIdentity(config);
  // Empty until the engine has started and given it its capacity.
  const room = createSendRoom();
  const deliveryRoom = createSendRoom();
  // Handed over while the engine thread was still starting (its room is given before it is ready).
  const early: SendWork[] = [];
  const earlyDeliveries: HeldDelivery[] = [];
  // Webhooks are queued inside each status change's transaction; the engine sends them.
  const webhooksQueued = () => engine?.wake(['webhooks']);
  const now = () => Date.now();
  const metrics = createMetrics({ queueDepth: (at) => store.operations.queueDepth(at), now, logger });
  const store = createStore(conn, {
    // Recipients this thread moves (acceptance, cancels): the engine counts its own.
    onEntered: countRecipientsInto(metrics.engine),
    // Webhooks and deliver_sm for SMPP customers (decisions §21) queue in the same transaction.
    transitionSink: bothTransitionSinks(createReportSink({ onQueued: webhooksQueued }), smppReceiptSink()),
    inboundSink: bothInboundSinks(createInboundSink({ onQueued: webhooksQueued }), smppInboundSink()),
    // Recipients due at once go to this node's engine in memory, as far as it has room.
    sendHandoff: {
      node: node.id,
      take: (n) => room.take(n),
      give: (n) => room.give(n),
      handOff: (work) => (engine ? engine.adopt(work) : early.push(...work)),
    },
    // And the webhooks those acceptances queue.
    deliveryHandoff: {
      node: node.id,
      take: (n) => deliveryRoom.take(n),
      give: (n) => deliveryRoom.give(n),
      handOff: (held) => (engine ? engine.adoptDeliveries(held) : earlyDeliveries.push(...held)),
    },
  });
  /** The database's own background work first, then its connection: the last step of every stop. */
  const closeDatabase = async () => {
    await statistics?.stop();
    await store.close();
    await checkpointer?.stop();
  };
  /** A start-up step; should it fail, the database's background work and connection close first. */
  const orClose = async <T>(step: Promise<T>): Promise<T> => {
    try {
      return await step;
    } catch (error) {
      await closeDatabase();
      throw error;
    }
  };
  const { apiKey } = await orClose(ensureBootstrapAccount(store, config.bootstrapKey, now(), logger));
  // What GET /readyz reports besides the database (decisions §12).
  let engineState = 'starting';
  let stopping = false;
  const app = await orClose(
    buildApp({
      config,
      store,
      logger,
      now,
      wake: (kinds) => engine?.wake(kinds),
      connectorStates: () => engine?.connectorStates() ?? Promise.resolve({}),
      webhookEndpoints: () => engine?.webhookEndpoints() ?? Promise.resolve([]),
      onRoutingChanged: () => engine?.routingChanged(),
      consoleDir: options.consoleDir ?? BUILT_CONSOLE,
      lifecycle: { engine: () => engineState, stopping: () => stopping },
      metrics,
    }),
  );
  // A port in use, say: the app closes too.
  await orClose(
    app.listen({ port: config.port, host: config.host }).catch(async (error: unknown) => {
      await app.close();
      throw error;
    }),
  );
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // Accepted messages and queued webhooks wait in the store until the engine starts; nothing is
  // lost meanwhile.
  try {
    engine = ownThread
      ? await startEngineThread({ config, logger, writeLock, node, room, deliveryRoom })
      : await startEngineHere({ config, logger, store, now, node, room, deliveryRoom });
    if (early.length > 0) engine.adopt(early.splice(0));
    if (earlyDeliveries.length > 0) engine.adoptDeliveries(earlyDeliveries.splice(0));
  } catch (error) {
    await app.close();
    await closeDatabase();
    throw error;
  }
  engineState = 'ok';
  const running = engine;
  metrics.addThread(() => running.metrics());
  void engine.failed.then(() => (engineState = 'failed'));
  // Customers' binds submit through the same use case as the POST; started once the engine
  // runs, so the node's row exists for the binds it records.
  let smpp: SmppServer | null = null;
  if (config.smppServer) {
    try {
      smpp = await startSmppServer({
        config: config.smppServer,
        host: config.host,
        node: node.id,
        send: { store, now, wake: (kinds) => engine?.wake(kinds), writer: createMessageWriter(store) },
        logger,
      });
    } catch (error) {
      await app.close();
      await engine.stop();
      await closeDatabase();
      throw error;
    }
  }
  // Expired idempotency keys always; finished messages and webhooks with SMSGW_RETENTION.
  const cleaner = startCleaner({ store, retentionMs: config.retentionMs, now, logger });
  const host = ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost'].includes(config.host)
    ? 'localhost'
    : config.host;
  const baseUrl = `http://${host}:${port}/v1`;
  let shutdown: Promise<void> | null = null;
  return {
    app,
    store,
    baseUrl,
    bootstrapApiKey: apiKey,
    engineFailed: engine.failed,
    metrics,
    smpp,
    stop() {
      // Readiness goes false first, so a load balancer stops sending traffic while the API
      // still answers what reaches it.
      stopping = true;
      shutdown ??= (async () => {
        // Each step is logged: a shutdown that takes long says where it is.
        const started = Date.now();
        const done = (step: string) => logger.info({ ms: Date.now() - started }, `shutdown: ${step}`);
        // New requests stop first, then in-flight sends and webhooks finish and are recorded.
        await closeApi(app, logger);
        done('API closed');
        if (smpp) {
          await smpp.close();
          done('SMPP server closed');
        }
        await cleaner.stop();
        await engine?.stop();
        done('engine stopped');
        await closeDatabase();
        done('database closed');
      })();
      return shutdown;
    },
  };
}

/** How long requests still running at shutdown get to finish before their connections are cut. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * Closes the listener and idle keep-alive connections at once, and gives requests still
 * running SHUTDOWN_GRACE_MS. A client that stops reading its response, or never sends the rest
 * of its body, would otherwise hold the whole shutdown until Node's own timeouts (a test's
 * unread response held one for 70 s); after the grace period such connections are cut.
 */
async function closeApi(app: App, logger: Logger): Promise<void> {
  const cut = setTimeout(() => {
    logger.warn(
      { graceMs: SHUTDOWN_GRACE_MS },
      'shutdown: cutting connections still busy after the grace period',
    );
    app.server.closeAllConnections();
  }, SHUTDOWN_GRACE_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
