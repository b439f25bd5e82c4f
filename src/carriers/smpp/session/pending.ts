/**
 * Requests awaiting their response, by sequence number. Every entry has a timer, so nothing
 * waits forever: a lost response costs one timeout, never a stuck window slot.
 */
import type { Pdu } from '../pdu/index.js';
import { failed, type Reply, type RequestFailure } from './reply.js';

interface Entry {
  readonly resolve: (reply: Reply) => void;
  readonly timer: NodeJS.Timeout;
  readonly onResponse: ((pdu: Pdu) => void) | undefined;
}

/** SMPP 3.4 §3.2: sequence numbers run 0x00000001..0x7FFFFFFF. */
const MAX_SEQUENCE = 0x7fffffff;

export class PendingRequests {
  private readonly entries = new Map<number, Entry>();
  private sequence = 0;

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
      const timer = setTimeout(() => {
        this.entries.delete(sequenceNumber);
        resolve(failed('timeout', `no response to ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.entries.set(sequenceNumber, { resolve, timer, onResponse });
    });
  }

  /** False when nothing awaits this sequence number (late, duplicate or stray response). */
  settle(sequenceNumber: number, reply: Reply): boolean {
    const entry = this.entries.get(sequenceNumber);
    if (!entry) return false;
    this.entries.delete(sequenceNumber);
    clearTimeout(entry.timer);
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
}
