/**
 * What the carrier sends us: delivery receipts and inbound messages. Each is recorded in the
 * next turn with the others that arrived meanwhile, and acknowledged to the connector (which
 * only then answers the SMSC) once that turn has committed: nothing is acknowledged that is
 * not on disk, and nothing waits for unrelated work.
 */
import type { CarrierEvents, CarrierReceipt, InboundSms } from '../carriers/port.js';
import type { TickOps } from '../store/engine-store.js';
import type { Stage } from './stage.js';

type CarrierEvent =
  | { readonly kind: 'receipt'; readonly receipt: CarrierReceipt; readonly done: () => void }
  | { readonly kind: 'inbound'; readonly message: InboundSms; readonly done: () => void };

export interface CarrierEventStage extends Stage<CarrierEvent, never> {
  /** What the connector raises its events to. */
  readonly events: CarrierEvents;
  /** Events waiting for a turn. */
  readonly waiting: number;
}

export interface CarrierEventOptions {
  /** The name receipts' carrier ids are recorded under. */
  readonly connector: string;
  /** An event is waiting to be recorded. */
  readonly onEvent: () => void;
  readonly onReceipts?: (count: number) => void;
  readonly onInbound?: (count: number) => void;
}

export function createCarrierEventStage(options: CarrierEventOptions): CarrierEventStage {
  let events: CarrierEvent[] = [];
  const add = (event: CarrierEvent) => {
    events.push(event);
    options.onEvent();
  };
  return {
    name: 'carrier-events',
    events: {
      receipt: (receipt) => new Promise((done) => add({ kind: 'receipt', receipt, done })),
      inbound: (message) => new Promise((done) => add({ kind: 'inbound', message, done })),
    },
    get waiting() {
      return events.length;
    },
    takeOutcomes: (limit) => events.splice(0, limit),
    async record(ops: TickOps, taken, now) {
      const receipts: CarrierReceipt[] = [];
      const inbound: InboundSms[] = [];
      for (const e of taken) {
        if (e.kind === 'receipt') receipts.push(e.receipt);
        else inbound.push(e.message);
      }
      // Receipts of one part keep their order: events are taken in arrival order.
      if (receipts.length > 0) await ops.applyReceipts(options.connector, receipts, now);
      if (inbound.length > 0) {
        await ops.storeInbound(
          inbound.map((m) => ({ ...m, connector: options.connector })),
          now,
        );
      }
    },
    wantsClaim: () => false,
    claim: () => Promise.resolve([]),
    handle(_work, recorded) {
      let receipts = 0;
      for (const e of recorded) {
        if (e.kind === 'receipt') receipts += 1;
        e.done();
      }
      if (receipts > 0) options.onReceipts?.(receipts);
      if (recorded.length > receipts) options.onInbound?.(recorded.length - receipts);
    },
    restore(taken) {
      events = [...taken, ...events];
    },
  };
}
