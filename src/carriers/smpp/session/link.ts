/**
 * One SMPP connection, either side: framing, sequence numbers, outstanding requests and
 * keep-alive. What a request means (bind, submit, deliver) is the owner's business; the link
 * answers only what needs no decision: enquire_link, unbind, and unreadable PDUs.
 */
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import {
  CommandId,
  CommandStatus,
  encodeInto,
  isResponseId,
  makePdu,
  PduReader,
  type DecodeResult,
  type Pdu,
  type Unnumbered,
  Writer,
} from '../pdu/index.js';
import { PendingRequests } from './pending.js';
import { failed, type Reply } from './reply.js';

/** A request PDU before the link numbers it. */
export type Outgoing = Unnumbered;

export interface LinkOptions {
  readonly logger: Logger;
  /** Every request other than enquire_link and unbind. Answer it with link.send(). */
  readonly onRequest: (pdu: Pdu) => void;
  /** Send enquire_link after this long without receiving anything; 0 = never. */
  readonly enquireLinkMs: number;
  /** How long enquire_link and unbind wait for their responses. */
  readonly responseTimeoutMs: number;
  /** The peer unbound (already answered; the link is closing). */
  readonly onUnbind?: () => void;
}

/** Room for a window of 100 small PDUs before the turn's buffer has to grow. */
const OUTGOING_START_SIZE = 8192;

export class Link {
  private readonly reader = new PduReader();
  private readonly pending = new PendingRequests();
  private lastReceivedAt = Date.now();
  private keepAlive: NodeJS.Timeout | null = null;
  private enquiring = false;
  private closeReason: string | null = null;
  /** PDUs encoded for this turn's write (see send()). */
  private outgoing: Writer | null = null;
  private flushScheduled = false;
  /** Resolves with the reason once the socket has closed. */
  readonly closed: Promise<string>;

  constructor(
    private readonly socket: Socket,
    private readonly options: LinkOptions,
  ) {
    let onClosed: (reason: string) => void = () => {};
    this.closed = new Promise((resolve) => (onClosed = resolve));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (err) => {
      this.closeReason ??= err.message;
      options.logger.debug({ err }, 'smpp socket error');
    });
    socket.on('close', () => {
      const reason = (this.closeReason ??= 'closed by peer');
      this.stopKeepAlive();
      this.pending.failAll('closed', `link closed: ${reason}`);
      onClosed(reason);
    });
    this.scheduleKeepAlive();
  }

  get isOpen(): boolean {
    return this.closeReason === null && !this.socket.destroyed;
  }

  get outstanding(): number {
    return this.pending.size;
  }

  /**
   * Sends a request and resolves with its response or why there is none. Never rejects.
   * `onResponse` is called with the response as soon as it is read, before the PDUs behind it
   * in the stream: the promise settles only a few microtask hops later, after a receipt that
   * came in the same chunk has already been handled.
   */
  request(pdu: Outgoing, timeoutMs: number, onResponse?: (response: Pdu) => void): Promise<Reply> {
    if (!this.isOpen)
      return Promise.resolve(failed('closed', `link closed: ${this.closeReason ?? 'destroyed'}`));
    const sequenceNumber = this.pending.nextSequence();
    this.write(pdu, sequenceNumber);
    return this.pending.track(sequenceNumber, timeoutMs, pdu.command, onResponse);
  }

  /**
   * Writes a PDU; false when the link is already closed. PDUs sent in the same turn of the
   * event loop go out in one write: a write per PDU was the largest single cost of the smpp
   * bench (four PDUs per message, each a syscall and a stream request on both sides).
   */
  send(pdu: Pdu): boolean {
    if (!this.isOpen) return false;
    this.write(pdu, pdu.sequenceNumber);
    return true;
  }

  /** Ends the connection after what was written is flushed. */
  async end(reason: string, waitMs = 2000): Promise<void> {
    this.flush();
    this.closeReason ??= reason;
    this.socket.end();
    const timer = setTimeout(() => this.socket.destroy(), waitMs);
    await this.closed;
    clearTimeout(timer);
  }

  destroy(reason: string): void {
    // What was sent before (a generic_nack for the PDU that broke the stream) still goes.
    this.flush();
    this.closeReason ??= reason;
    this.socket.destroy();
  }

  /** Encodes straight into this turn's buffer; throws (writing nothing) on a PDU that breaks the layout. */
  private write(pdu: Outgoing, sequenceNumber: number): void {
    encodeInto((this.outgoing ??= new Writer(OUTGOING_START_SIZE)), pdu, sequenceNumber);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    const out = this.outgoing;
    // A fresh buffer for the next turn: the socket may hold on to this one until it is sent.
    this.outgoing = null;
    if (out === null || out.length === 0 || this.socket.destroyed) return;
    this.socket.write(out.toBuffer());
  };

  private receive(chunk: Buffer): void {
    this.lastReceivedAt = Date.now();
    for (const result of this.reader.feed(chunk)) {
      if (!this.isOpen) return;
      if (result.kind === 'pdu') this.dispatch(result.pdu);
      else this.reject(result);
    }
  }

  private dispatch(pdu: Pdu): void {
    if (isResponseId(CommandId[pdu.command])) {
      if (!this.pending.respond(pdu)) {
        this.options.logger.warn({ command: pdu.command, seq: pdu.sequenceNumber }, 'response to no request');
      }
      return;
    }
    if (pdu.command === 'enquire_link') {
      this.send(makePdu('enquire_link_resp', { sequenceNumber: pdu.sequenceNumber }));
    } else if (pdu.command === 'unbind') {
      this.send(makePdu('unbind_resp', { sequenceNumber: pdu.sequenceNumber }));
      this.options.onUnbind?.();
      void this.end('peer unbound');
    } else {
      this.options.onRequest(pdu);
    }
  }

  private reject(result: Exclude<DecodeResult, { kind: 'pdu' }>): void {
    const { commandId, sequenceNumber } = result;
    this.options.logger.warn({ result }, 'unreadable pdu');
    const isRequest = commandId !== undefined && !isResponseId(commandId);
    if (isRequest && sequenceNumber !== undefined) {
      const nackStatus = result.kind === 'invalid' ? result.nackStatus : CommandStatus.ESME_RINVCMDLEN;
      this.send(makePdu('generic_nack', { sequenceNumber, commandStatus: nackStatus }));
    } else if (sequenceNumber !== undefined) {
      this.pending.settle(sequenceNumber, failed('bad-response', result.reason));
    }
    // The stream is out of step for good after a framing error: nothing more can be read.
    if (result.kind === 'fatal') this.destroy(`unreadable stream: ${result.reason}`);
  }

  private scheduleKeepAlive(): void {
    const every = this.options.enquireLinkMs;
    if (every <= 0 || !this.isOpen) return;
    const due = this.lastReceivedAt + every - Date.now();
    this.keepAlive = setTimeout(() => void this.tick(), Math.max(10, due));
  }

  private stopKeepAlive(): void {
    if (this.keepAlive) clearTimeout(this.keepAlive);
    this.keepAlive = null;
  }

  private async tick(): Promise<void> {
    this.keepAlive = null;
    if (!this.isOpen) return;
    if (!this.enquiring && Date.now() - this.lastReceivedAt >= this.options.enquireLinkMs) {
      this.enquiring = true;
      const reply = await this.request(
        { command: 'enquire_link', commandStatus: 0 },
        this.options.responseTimeoutMs,
      );
      this.enquiring = false;
      if (reply.kind === 'failed' && this.isOpen) {
        this.options.logger.warn({ detail: reply.detail }, 'enquire_link unanswered; closing the link');
        this.destroy('enquire_link_resp missing');
        return;
      }
    }
    this.scheduleKeepAlive();
  }
}
