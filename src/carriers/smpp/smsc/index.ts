/** The SMSC simulator (`smsgw smsc-sim`): an SMPP 3.4 server answering by decisions §8. */
export { createSmscSimulator, type SmscSimulator } from './simulator.js';
export { SIMULATOR_DEFAULTS, type SmscSimulatorOptions } from './options.js';
export { OUTCOME_BY_LAST_DIGIT, outcomeFor, type SimulatedOutcome } from './outcomes.js';
export type { IdFormat } from './message-ids.js';
export { SmscStats, type SubmitRecord } from './stats.js';
export { receiptText } from './receipt.js';
export { startHttpControl, type HttpControl } from './http-control.js';
