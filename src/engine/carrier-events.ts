/**
 * What the carrier sends us: delivery receipts and inbound messages. Each is recorded in the
 * next turn with the others that arrived meanwhile, and acknowledged to the connector (which
 * only then answers the SMSC) once that turn has committed: nothing is acknowledged that is
 * not on disk, and nothing waits for unrelated work.
 */
import type { CarrierEvents, CarrierReceipt, InboundSms } from '../carriers/port.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
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
  /**
   * A receipt whose submit's acceptance is not recorded yet waits for it: a receipt recorded
   * beside it in a concurrent turn would find no part and wait for the orphan sweep.
   */
  readonly unrecorded?: (carrierId: string) => boolean;
  /** Counted once the turn that recorded them has committed. */
  readonly metrics?: Pick<EngineMetrics, 'receiptsReceived' | 'inboundReceived'>;
}

export function createCarrierEventStage(options: CarrierEventOptions): CarrierEventStage {
  let events: CarrierEvent[] = [];
  /** Receipts of the turn being recorded, by connector: [unmatched, matched]. */
  let counted = new Map<string, [number, number]>();
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
    takeOutcomes(limit) {
      const { unrecorded } = options;
      if (!unrecorded) return events.splice(0, limit);
      const taken: CarrierEvent[] = [];
      const waiting: CarrierEvent[] = [];
      for (const e of events) {
        if (taken.length < limit && !(e.kind === 'receipt' && unrecorded(e.receipt.carrierId))) taken.push(e);
        else waiting.push(e);
      }
      events = waiting;
      return taken;
    },
    async record(ops: TickOps, taken, now) {
      const receipts: CarrierReceipt[] = [];
      const inbound: InboundSms[] = [];
      for (const e of taken) {
        if (e.kind === 'receipt') receipts.push(e.receipt);
        else inbound.push(e.message);
      }
      // Receipts of one part keep their order: events are taken in arrival order.
      if (receipts.length > 0) {
        const { unmatched } = await ops.applyReceipts(options.connector, receipts, now);
        counted = new Map();
        for (const r of receipts) {
          const name = r.connector ?? options.connector;
          const counts = counted.get(name) ?? [0, 0];
          counts[unmatched.has(r.carrierId) ? 0 : 1] += 1;
          counted.set(name, counts);
        }
      }
      if (inbound.length > 0) {
        const { connector } = options;
        // Written out, not spread: an MO per event.
        await ops.storeInbound(
          inbound.map((m) => ({ from: m.from, to: m.to, body: m.body, receivedAt: m.receivedAt, connector })),
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
      const { metrics } = options;
      if (metrics) {
        for (const [name, [unmatched, matched]] of counted) {
          if (matched > 0) metrics.receiptsReceived(name, true, matched);
          if (unmatched > 0) metrics.receiptsReceived(name, false, unmatched);
        }
        if (recorded.length > receipts) metrics.inboundReceived(recorded.length - receipts);
      }
      counted = new Map();
    },
    restore(taken) {
      events = [...taken, ...events];
      counted = new Map();
    },
  };
}
