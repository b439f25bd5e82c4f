/**
 * One keep-alive connection to a webhook receiver, carrying one exchange at a time (no
 * pipelining: receivers are arbitrary servers, and an attempt's answer must be its own).
 */
import type { Socket } from 'node:net';
import type { Exchange } from './exchange.js';
import { describeFailure } from './errors.js';
import { ResponseParser } from './response-parser.js';

export interface ConnectionEvents {
  /** The exchange in hand is answered and the connection can take another. */
  free(connection: Connection): void;
  /** The socket is gone; an exchange it still held is handed back when `retry` is set. */
  closed(connection: Connection, retry: Exchange | null): void;
}

export class Connection {
  private exchange: Exchange | null = null;
  private parser: ResponseParser | null = null;
  /** Bytes of the current exchange's response received so far. */
  private received = 0;
  private ready = false;
  private closed = false;
  /** Responses completed on this socket: a reused socket may have been closed by the peer. */
  private served = 0;
  /** performance.now() when the connection last went idle. */
  idleSince = 0;

  constructor(
    private readonly socket: Socket,
    private readonly readCap: number,
    private readonly events: ConnectionEvents,
    /** Checks the connected socket (the address guard); returns why it must not be used, or null. */
    private readonly vet: (socket: Socket) => ExchangeRefusal | null,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onEnd());
    socket.on('error', (error) => {
      const failure = describeFailure(error);
      this.fail(failure.error, failure.privateRefused);
    });
    socket.on('close', () => this.onClose());
  }

  get busy(): boolean {
    return this.exchange !== null;
  }

  /** When the exchange in hand runs out of time; null when idle. */
  get deadline(): number | null {
    return this.exchange?.deadline ?? null;
  }

  /** Called by the pool when the socket's connect (and TLS handshake) completed. */
  connected(): void {
    if (this.closed) return;
    const refusal = this.vet(this.socket);
    if (refusal !== null) {
      this.fail(refusal.error, refusal.privateRefused);
      this.socket.destroy();
      return;
    }
    this.ready = true;
    if (this.exchange) this.socket.write(this.exchange.request);
  }

  assign(exchange: Exchange): void {
    this.exchange = exchange;
    this.parser = new ResponseParser(this.readCap);
    this.received = 0;
    if (this.ready) this.socket.write(exchange.request);
  }

  /** The deadline passed: answer with what has arrived, and drop the socket. */
  timeOut(): void {
    const exchange = this.exchange;
    if (!exchange) return;
    this.exchange = null;
    const status = this.parser?.status ?? null;
    if (status !== null) {
      exchange.answer({
        kind: 'response',
        status,
        retryAfter: undefined,
        body: this.parser!.bodySoFar(),
      });
    } else {
      exchange.answer({ kind: 'no_response', error: 'timeout', privateRefused: false });
    }
    this.socket.destroy();
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    const exchange = this.exchange;
    const parser = this.parser;
    if (!exchange || !parser) {
      // Bytes nobody asked for: the framing can no longer be trusted.
      this.socket.destroy();
      return;
    }
    this.received += chunk.length;
    const event = parser.feed(chunk);
    if (event.kind === 'more') return;
    this.exchange = null;
    if (event.kind === 'error') {
      exchange.answer({ kind: 'no_response', error: 'bad response', privateRefused: false });
      this.socket.destroy();
      return;
    }
    const { head, body } = event;
    const reusable = event.kind === 'done' && head.keepAlive && event.rest === 0;
    if (reusable) {
      this.served += 1;
      this.idleSince = performance.now();
      // Back in the pool before the answer runs, so the caller's next post finds it idle.
      this.events.free(this);
    } else {
      this.socket.destroy();
    }
    exchange.answer({ kind: 'response', status: head.status, retryAfter: head.retryAfter, body });
  }

  private onEnd(): void {
    const exchange = this.exchange;
    if (exchange && this.parser) {
      const event = this.parser.end();
      if (event.kind === 'done') {
        this.exchange = null;
        exchange.answer({
          kind: 'response',
          status: event.head.status,
          retryAfter: event.head.retryAfter,
          body: event.body,
        });
      }
    }
    this.socket.end();
  }

  private fail(error: string, privateRefused: boolean): void {
    const exchange = this.exchange;
    if (!exchange) return;
    if (this.retryable()) return; // handed back in onClose
    this.exchange = null;
    const status = this.parser?.status ?? null;
    if (status !== null) {
      exchange.answer({ kind: 'response', status, retryAfter: undefined, body: this.parser!.bodySoFar() });
    } else {
      exchange.answer({ kind: 'no_response', error, privateRefused });
    }
  }

  /**
   * A receiver may close an idle keep-alive connection just as we send on it; nothing of the
   * answer has arrived, so the request goes once more on a fresh connection.
   */
  private retryable(): boolean {
    return this.served > 0 && this.received === 0 && this.exchange?.retriedOnFreshConnection === false;
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    let retry: Exchange | null = null;
    if (this.exchange) {
      if (this.retryable()) {
        retry = this.exchange;
        retry.retriedOnFreshConnection = true;
        this.exchange = null;
      } else {
        this.fail('connection closed', false);
      }
    }
    this.events.closed(this, retry);
  }
}

export interface ExchangeRefusal {
  readonly error: string;
  readonly privateRefused: boolean;
}
