/**
 * deliver_sm (receipts and MO) on their way to the ESME. Like a real SMSC, the simulator
 * keeps each one until an ESME bound as receiver or transceiver answers ESME_ROK: one sent
 * while nobody is bound waits for a bind, and one answered with an error (ESME_RX_T_APPN …)
 * or not at all is sent again after a delay, a few times.
 *
 * A receipt goes back on the connection its submit came on when that one can receive, else
 * to another receiver bound with the same system_id, else to any receiver.
 */
import type { Logger } from 'pino';
import { CommandStatus, type PduOf } from '../pdu/index.js';
import type { Link } from '../session/index.js';
import type { SmscStats } from './stats.js';

export interface Receiver {
  readonly link: Link;
  readonly systemId: string;
}

export interface DeliveryQueueOptions {
  readonly responseTimeoutMs: number;
  readonly redeliveryDelayMs: number;
  readonly maxAttempts: number;
  readonly logger: Logger;
}

interface Item {
  /** Its sequence number is the link's to give, on every attempt. */
  readonly pdu: PduOf<'deliver_sm'>;
  readonly origin: Receiver | null;
  attempts: number;
  readonly resolve: (acknowledged: boolean) => void;
}

export class DeliveryQueue {
  private readonly receivers: Receiver[] = [];
  private readonly waiting: Item[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly unfinished = new Set<Item>();
  private turn = 0;
  private closed = false;

  constructor(
    private readonly stats: SmscStats,
    private readonly options: DeliveryQueueOptions,
  ) {}

  /** Resolves true once an ESME acknowledged it, false when given up or the simulator closed. */
  add(pdu: PduOf<'deliver_sm'>, origin: Receiver | null = null): Promise<boolean> {
    return new Promise((resolve) => {
      const item: Item = { pdu, origin, attempts: 0, resolve };
      this.unfinished.add(item);
      void this.dispatch(item);
    });
  }

  /** Sends later, keeping the timer so close() can cancel it. */
  later(run: () => void, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, delayMs);
    this.timers.add(timer);
  }

  attach(receiver: Receiver): void {
    this.receivers.push(receiver);
    for (const item of this.waiting.splice(0)) void this.dispatch(item);
  }

  detach(receiver: Receiver): void {
    const i = this.receivers.indexOf(receiver);
    if (i >= 0) this.receivers.splice(i, 1);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.waiting.length = 0;
    for (const item of [...this.unfinished]) this.done(item, false);
  }

  private done(item: Item, acknowledged: boolean): void {
    this.unfinished.delete(item);
    item.resolve(acknowledged);
  }

  private choose(origin: Receiver | null): Receiver | undefined {
    if (origin?.link.isOpen && this.receivers.some((r) => r.link === origin.link)) return origin;
    const open = this.receivers.filter((r) => r.link.isOpen);
    const same = open.filter((r) => r.systemId === origin?.systemId);
    const pool = same.length > 0 ? same : open;
    return pool[this.turn++ % Math.max(1, pool.length)];
  }

  private async dispatch(item: Item): Promise<void> {
    if (this.closed) return;
    const receiver = this.choose(item.origin);
    if (!receiver) {
      this.waiting.push(item);
      return;
    }
    item.attempts++;
    const reply = await receiver.link.request(item.pdu, this.options.responseTimeoutMs);
    if (reply.kind === 'response' && reply.pdu.commandStatus === CommandStatus.ESME_ROK) {
      this.stats.deliveredOk++;
      this.done(item, true);
      return;
    }
    if (reply.kind === 'response') this.stats.deliveredNacked++;
    const why = reply.kind === 'response' ? `status ${reply.pdu.commandStatus}` : reply.detail;
    if (item.attempts >= this.options.maxAttempts) {
      this.options.logger.warn({ why, attempts: item.attempts }, 'deliver_sm given up');
      this.done(item, false);
      return;
    }
    this.options.logger.debug(
      { why, attempts: item.attempts },
      'deliver_sm not acknowledged; will send again',
    );
    this.later(() => void this.dispatch(item), this.options.redeliveryDelayMs);
  }
}
