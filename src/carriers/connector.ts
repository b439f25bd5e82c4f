import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Store } from '../store/port.js';
import type { ConnectorRecord } from '../store/connectors.js';
import type { CarrierConnector } from './port.js';
import { createRouter, type Router } from './routing/router.js';
import { SIMULATOR_CONNECTOR, createSimulator } from './simulator/simulator.js';
import { createSmppConnector } from './smpp/connector/index.js';

/** Name under which SMPP parts and receipts are recorded (per-connector ids are namespaced). */
export const SMPP_CARRIER = 'smpp';

export interface Carrier {
  readonly connector: CarrierConnector;
  /** With SMSGW_CARRIER=smpp: the router, whose connectors the admin API reads and reloads. */
  readonly router: Router | null;
}

/** The carrier link chosen by SMSGW_CARRIER, for the node `nodeId`. */
export function createCarrier(
  config: Config,
  store: Store,
  logger: Logger,
  now: () => number,
  nodeId: string,
): Carrier {
  if (config.carrier === 'smpp') {
    const router = createSmppRouter(store, logger, nodeId, now);
    return { connector: router, router };
  }
  const simulator = createSimulator({
    delayMs: config.simDelayMs,
    now,
    logger: logger.child({ component: 'simulator' }),
    outstanding: () => store.engine.outstandingParts(SIMULATOR_CONNECTOR),
    journalPath: config.simJournal,
  });
  return { connector: simulator, router: null };
}

/**
 * Connectors and routes live in the database (admin API / CLI); every node reloads them, and
 * binds a connector only while it holds one of the connector's max_binds slots.
 */
function createSmppRouter(store: Store, logger: Logger, nodeId: string, now: () => number): Router {
  return createRouter<ConnectorRecord>({
    binds: {
      acquire: (connector, maxBinds) => store.binds.acquire(connector, nodeId, maxBinds, now()),
      release: (connector) => store.binds.release(connector, nodeId),
    },
    name: SMPP_CARRIER,
    load: async () => ({
      connectors: await store.connectors.list(),
      routes: (await store.connectors.listRoutes()).map((r) => ({
        prefix: r.prefix,
        connector: r.connector,
        priority: r.priority,
      })),
    }),
    create: (c) =>
      createSmppConnector({
        name: c.name,
        host: c.host,
        port: c.port,
        tls: c.tls,
        systemId: c.systemId,
        password: c.password,
        systemType: c.systemType,
        bindMode: c.bindMode,
        window: c.window,
        throughput: c.throughput,
        ...(c.sourceTon !== null && { sourceTon: c.sourceTon }),
        ...(c.sourceNpi !== null && { sourceNpi: c.sourceNpi }),
        destTon: c.destTon,
        destNpi: c.destNpi,
        defaultDataCoding: c.defaultDataCoding,
        concatenation: c.concatenation,
        requestReceipts: c.requestReceipts,
        logger: logger.child({ component: 'smpp', connector: c.name }),
      }),
    logger: logger.child({ component: 'router' }),
  });
}
