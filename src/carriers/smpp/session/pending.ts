/**
 * Requests awaiting their response, by sequence number. Every entry has a deadline, so nothing
 * waits forever: a lost response costs one timeout, never a stuck window slot.
 */
import type { Pdu } from '../pdu/index.js';
import { failed, type Reply, type RequestFailure } from './reply.js';

interface Entry {
  readonly resolve: (reply: Reply) => void;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly what: string;
  readonly onResponse: ((pdu: Pdu) => void) | undefined;
}

/** SMPP 3.4 §3.2: sequence numbers run 0x00000001..0x7FFFFFFF. */
const MAX_SEQUENCE = 0x7fffffff;

export class PendingRequests {
  private readonly entries = new Map<number, Entry>();
  private sequence = 0;
  /**
   * One timer for all entries, set for the earliest deadline that may still be open. A timer
   * per request was a Timeout object, a closure and a clearTimeout for every submit and every
   * deliver_sm; with the window full, this one fires about once per timeout period.
   */
  private timer: NodeJS.Timeout | null = null;
  private timerAt = 0;

  nextSequence(): number {
    // Skip numbers still awaiting a response after a wrap, however unlikely.
    do this.sequence = this.sequence >= MAX_SEQUENCE ? 1 : this.sequence + 1;
    while (this.entries.has(this.sequence));
    return this.sequence;
  }

  /**
   * Resolves with the response, or a failure once `timeoutMs` passes. `onResponse` sees the
   * response synchronously, before the link reads the PDU after it (see Link.request).
   */
  track(
    sequenceNumber: number,
    timeoutMs: number,
    what: string,
    onResponse?: (pdu: Pdu) => void,
  ): Promise<Reply> {
    return new Promise((resolve) => {
      const deadline = Date.now() + timeoutMs;
      this.entries.set(sequenceNumber, { resolve, deadline, timeoutMs, what, onResponse });
      this.wakeAt(deadline);
    });
  }

  /** False when nothing awaits this sequence number (late, duplicate or stray response). */
  settle(sequenceNumber: number, reply: Reply): boolean {
    const entry = this.entries.get(sequenceNumber);
    if (!entry) return false;
    this.entries.delete(sequenceNumber);
    // Nothing left to time out: no timer keeps the process alive for an idle link.
    if (this.entries.size === 0) this.stopTimer();
    entry.resolve(reply);
    return true;
  }

  respond(pdu: Pdu): boolean {
    this.entries.get(pdu.sequenceNumber)?.onResponse?.(pdu);
    return this.settle(pdu.sequenceNumber, { kind: 'response', pdu });
  }

  failAll(error: RequestFailure, detail: string): void {
    for (const seq of [...this.entries.keys()]) this.settle(seq, failed(error, detail));
  }

  get size(): number {
    return this.entries.size;
  }

  private wakeAt(deadline: number): void {
    if (this.timer !== null && this.timerAt <= deadline) return;
    this.stopTimer();
    this.timerAt = deadline;
    this.timer = setTimeout(this.expire, Math.max(0, deadline - Date.now()));
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private readonly expire = (): void => {
    this.timer = null;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [seq, entry] of [...this.entries]) {
      if (entry.deadline <= now) {
        this.settle(seq, failed('timeout', `no response to ${entry.what} within ${entry.timeoutMs} ms`));
      } else {
        next = Math.min(next, entry.deadline);
      }
    }
    if (next !== Number.POSITIVE_INFINITY) this.wakeAt(next);
  };
}
