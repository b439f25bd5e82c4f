import { appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { planParts } from '../../domain/parts.js';
import type {
  CarrierConnector,
  CarrierEvents,
  CarrierReceipt,
  SubmitOutcome,
  SubmitRequest,
} from '../port.js';
import { simulatedOutcome } from './outcomes.js';

export const SIMULATOR_CONNECTOR = 'simulator';

export interface SimulatorOptions {
  /** Delay from submit to receipt (SMSGW_SIM_DELAY_MS). */
  readonly delayMs: number;
  readonly now: () => number;
  readonly logger: Logger;
  /**
   * Parts accepted before a restart and still waiting for a receipt. A real SMSC keeps them
   * across our crash; the simulator is deterministic, so it rebuilds them from our records.
   */
  readonly outstanding?: () => Promise<{ carrierId: string; to: string; sentAt: number }[]>;
  /** Append every accepted submit as a JSON line (SMSGW_SIM_JOURNAL): a carrier-side record. */
  readonly journalPath?: string | null;
}

interface Pending {
  readonly due: number;
  readonly receipt: CarrierReceipt;
}

/**
 * The built-in carrier (decisions §8). Receipts are due in submit order because the delay is
 * constant, so a FIFO queue and a single timer serve any volume.
 */
export function createSimulator(options: SimulatorOptions): CarrierConnector {
  const boot = randomBytes(4).toString('hex');
  let counter = 0;
  let queue: Pending[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | null = null;
  let events: CarrierEvents | null = null;
  let stopped = false;
  let inFlight = 0;

  const schedule = () => {
    if (timer || stopped || head >= queue.length) return;
    const wait = Math.max(0, queue[head]!.due - options.now());
    timer = setTimeout(deliver, wait);
  };

  const deliver = () => {
    timer = null;
    const now = options.now();
    while (head < queue.length && queue[head]!.due <= now) {
      const { receipt } = queue[head++]!;
      inFlight += 1;
      // Written out, not spread: a receipt per message. The simulator's receipts carry no error.
      events!.receipt({ carrierId: receipt.carrierId, state: receipt.state, at: now }).then(
        () => (inFlight -= 1),
        (error: unknown) => {
          inFlight -= 1;
          // Not recorded: offer it again shortly, as an SMSC redelivers an unacknowledged receipt.
          options.logger.warn({ err: error }, 'simulated receipt not recorded; redelivering');
          queue.push({ due: options.now() + 1000, receipt });
          schedule();
        },
      );
    }
    if (head > 10_000 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    schedule();
  };

  const enqueue = (carrierId: string, to: string, due: number) => {
    const state = simulatedOutcome(to);
    if (state === null) return;
    queue.push({ due, receipt: { carrierId, state, at: due } });
  };

  return {
    name: SIMULATOR_CONNECTOR,
    async start(e) {
      events = e;
      const outstanding = (await options.outstanding?.()) ?? [];
      outstanding.sort((a, b) => a.sentAt - b.sentAt);
      for (const part of outstanding) enqueue(part.carrierId, part.to, part.sentAt + options.delayMs);
      if (outstanding.length > 0)
        options.logger.info({ parts: outstanding.length }, 'simulator resumed outstanding receipts');
      schedule();
    },
    async submit(request: SubmitRequest): Promise<SubmitOutcome> {
      if (stopped) return { kind: 'retry', reason: 'simulator stopped' };
      if (simulatedOutcome(request.to) === null)
        return { kind: 'rejected', reason: 'simulated rejection (last digit 6)' };
      const parts = planParts(request.body).parts.length;
      const carrierIds = Array.from({ length: parts }, () => `sim-${boot}-${(counter++).toString(36)}`);
      if (options.journalPath) {
        appendFileSync(
          options.journalPath,
          `${JSON.stringify({ reference: request.reference, to: request.to, carrierIds })}\n`,
        );
      }
      if (request.requestReceipt) {
        const due = options.now() + options.delayMs;
        for (const id of carrierIds) enqueue(id, request.to, due);
        schedule();
      }
      return { kind: 'accepted', carrierIds };
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      // Let receipts already handed over finish recording.
      for (let waited = 0; inFlight > 0 && waited < 5000; waited += 20)
        await new Promise((r) => setTimeout(r, 20));
    },
  };
}
