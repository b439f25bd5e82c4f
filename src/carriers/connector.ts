import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Store } from '../store/port.js';
import type { CarrierConnector } from './port.js';
import { SIMULATOR_CONNECTOR, createSimulator } from './simulator/simulator.js';

/** The carrier link chosen by SMSGW_CARRIER. */
export function createConnector(
  config: Config,
  store: Store,
  logger: Logger,
  now: () => number,
): CarrierConnector {
  if (config.carrier === 'smpp') {
    throw new Error('SMSGW_CARRIER=smpp needs SMPP connectors, which this build does not configure yet');
  }
  return createSimulator({
    delayMs: config.simDelayMs,
    now,
    logger: logger.child({ component: 'simulator' }),
    outstanding: () => store.engine.outstandingParts(SIMULATOR_CONNECTOR),
    journalPath: config.simJournal,
  });
}
