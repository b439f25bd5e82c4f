/**
 * One keep-alive connection to a webhook receiver. Requests handed to it in one turn of the
 * event loop go out in one write, pipelined behind any still unanswered (at most the pool's
 * depth); answers come back in order (RFC 9112 §9.3.2). On loopback and in virtual machines a
 * write costs tens of microseconds of system time, more than the rest of an attempt, so at
 * delivery-report rates the number of writes decides the client's cost.
 */
import type { Socket } from 'node:net';
import type { Exchange } from './exchange.js';
import { describeFailure } from './errors.js';
import { ResponseParser } from './response-parser.js';

export interface ConnectionEvents {
  /** An exchange was answered: the connection has room for another. */
  free(connection: Connection): void;
  /**
   * The socket is gone. `unanswered` were sent (or about to be) and have no answer; `pipelined`
   * says the receiver dropped requests queued behind another, which the pool takes as a sign
   * it does not keep to pipelining.
   */
  closed(connection: Connection, unanswered: Exchange[], pipelined: boolean): void;
}

export interface ExchangeRefusal {
  readonly error: string;
  readonly privateRefused: boolean;
}

export class Connection {
  /** Sent or waiting to be written, oldest first; the head's answer is the one being read. */
  private readonly queue: Exchange[] = [];
  /** Requests of this turn not yet written. */
  private outgoing: string[] = [];
  private flushScheduled = false;
  private parser: ResponseParser;
  /** Bytes of the head's answer received so far. */
  private received = 0;
  private ready = false;
  private closed = false;
  /** No more requests go on it: the peer ended it, or it is being torn down. */
  private ending = false;
  /** Answers completed on this socket: a reused socket may have been closed by the peer. */
  private served = 0;
  /** Set when we destroyed the socket ourselves (a timeout), not the peer. */
  private ownClose = false;
  /** performance.now() when the connection last had nothing in flight. */
  idleSince = 0;

  constructor(
    private readonly socket: Socket,
    private readonly readCap: number,
    private readonly events: ConnectionEvents,
    /** Checks the connected socket (the address guard); returns why it must not be used, or null. */
    private readonly vet: (socket: Socket) => ExchangeRefusal | null,
  ) {
    this.parser = new ResponseParser(readCap);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onEnd());
    socket.on('error', (error) => this.fail(describeFailure(error)));
    socket.on('close', () => this.onClose());
  }

  get inFlight(): number {
    return this.queue.length;
  }

  /** It may take another request. */
  get usable(): boolean {
    return !this.closed && !this.ending;
  }

  /** When the exchange being answered runs out of time; null when idle. */
  get deadline(): number | null {
    return this.queue[0]?.deadline ?? null;
  }

  /** Called by the pool when the socket's connect (and TLS handshake) completed. */
  connected(): void {
    if (this.closed) return;
    const refusal = this.vet(this.socket);
    if (refusal !== null) {
      this.fail(refusal);
      this.destroy();
      return;
    }
    this.ready = true;
    this.flush();
  }

  assign(exchange: Exchange): void {
    this.queue.push(exchange);
    this.outgoing.push(exchange.request);
    if (this.ready && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flush);
    }
  }

  /** The head's deadline passed: answer it with what has arrived, and drop the socket. */
  timeOut(): void {
    const head = this.queue.shift();
    if (!head) return;
    const status = this.parser.status;
    if (status !== null) {
      head.answer({ kind: 'response', status, retryAfter: undefined, body: this.parser.bodySoFar() });
    } else {
      head.answer({ kind: 'no_response', error: 'timeout', privateRefused: false });
    }
    this.destroy();
  }

  close(): void {
    this.destroy();
  }

  /** Torn down by us: what is still queued goes back to the pool unanswered. */
  private destroy(): void {
    this.ownClose = true;
    this.ending = true;
    this.socket.destroy();
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    if (this.outgoing.length === 0 || this.closed) return;
    const batch = this.outgoing.length === 1 ? this.outgoing[0]! : this.outgoing.join('');
    this.outgoing = [];
    this.socket.write(batch);
  };

  private onData(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0) {
      const head = this.queue[0];
      if (!head) {
        // Bytes nobody asked for: the framing can no longer be trusted.
        this.destroy();
        return;
      }
      this.received += data.length;
      const event = this.parser.feed(data);
      if (event.kind === 'more') return;
      this.queue.shift();
      this.parser = new ResponseParser(this.readCap);
      this.received = 0;
      if (event.kind === 'error') {
        head.answer({ kind: 'no_response', error: 'bad response', privateRefused: false });
        this.destroy();
        return;
      }
      const { head: parsed, body } = event;
      const reusable = event.kind === 'done' && parsed.keepAlive;
      head.answer({ kind: 'response', status: parsed.status, retryAfter: parsed.retryAfter, body });
      if (!reusable) {
        // The receiver closes after this answer: what was queued behind it goes elsewhere.
        this.destroy();
        return;
      }
      this.served += 1;
      if (this.queue.length === 0) this.idleSince = performance.now();
      this.events.free(this);
      data = event.kind === 'done' ? event.rest : Buffer.alloc(0);
    }
  }

  private onEnd(): void {
    this.ending = true;
    const head = this.queue[0];
    if (head) {
      const event = this.parser.end();
      if (event.kind === 'done') {
        this.queue.shift();
        head.answer({
          kind: 'response',
          status: event.head.status,
          retryAfter: event.head.retryAfter,
          body: event.body,
        });
      }
    }
    this.socket.end();
  }

  /**
   * The head's attempt ends with this failure, unless the socket was a reused one closed before
   * any of its answer came (a receiver's idle timeout racing our send): then it goes again,
   * like everything queued behind it.
   */
  private fail(failure: ExchangeRefusal): void {
    const head = this.queue[0];
    if (!head || this.resendable(head)) return;
    this.queue.shift();
    const status = this.parser.status;
    if (status !== null) {
      head.answer({ kind: 'response', status, retryAfter: undefined, body: this.parser.bodySoFar() });
    } else {
      head.answer({ kind: 'no_response', error: failure.error, privateRefused: failure.privateRefused });
    }
  }

  private resendable(head: Exchange): boolean {
    return this.served > 0 && this.received === 0 && !head.retriedOnFreshConnection;
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    const head = this.queue[0];
    // Closed by the peer (or the network): the head's attempt ends here, unless it may go
    // again. Torn down by us, the head was answered already and the rest is not at fault.
    if (head && !this.ownClose && !this.resendable(head)) {
      this.fail({ error: 'connection closed', privateRefused: false });
    }
    const unanswered = this.queue.splice(0);
    this.events.closed(this, unanswered, unanswered.length > 1 && this.served > 0 && !this.ownClose);
  }
}
