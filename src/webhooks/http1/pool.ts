/**
 * Keep-alive connections per receiver origin, at most `maxConnections` of them. Requests are
 * spread over them once per turn of the event loop: parallel connections first, and only when
 * every connection is busy are requests pipelined behind each other, which lets one write
 * carry several of them. A receiver that drops pipelined requests gets none from then on.
 * Deadlines and idle connections are checked by one coarse timer for the whole client.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Logger } from 'pino';
import { isPrivateAddress, publicOnlyLookup } from '../address-guard.js';
import { Connection, type ExchangeRefusal } from './connection.js';
import type { Exchange } from './exchange.js';

export interface Target {
  readonly https: boolean;
  /** Without IPv6 brackets. */
  readonly hostname: string;
  readonly port: number;
}

export interface PoolOptions {
  readonly maxConnections: number;
  /** Requests in flight on one connection while every connection is busy; 1 = no pipelining. */
  readonly pipelineDepth: number;
  readonly readCap: number;
  readonly allowPrivate: boolean;
  /** A connection attempt's own limit (the exchange's deadline applies too). */
  readonly connectTimeoutMs: number;
  readonly logger?: Logger;
}

/**
 * Idle connections are closed after this: below the 5 s keep-alive timeout of Node's http
 * server (and most others), so we close first and rarely send on a socket being closed.
 */
const IDLE_MS = 4_000;

export class OriginPool {
  private readonly connections = new Set<Connection>();
  private waiting: Exchange[] = [];
  private depth: number;
  private spreadScheduled = false;
  /** close() was called: what its connections still held is answered, not sent again. */
  private closing = false;

  constructor(
    private readonly origin: string,
    private readonly target: Target,
    private readonly options: PoolOptions,
  ) {
    this.depth = Math.max(1, options.pipelineDepth);
  }

  get empty(): boolean {
    return this.connections.size === 0 && this.waiting.length === 0;
  }

  /** Queued now, given a connection with the others of this turn. */
  dispatch(exchange: Exchange): void {
    this.waiting.push(exchange);
    if (!this.spreadScheduled) {
      this.spreadScheduled = true;
      setImmediate(this.spread);
    }
  }

  /** Deadlines of exchanges in flight or waiting, and connections idle too long. */
  sweep(now: number): void {
    for (const connection of this.connections) {
      if (connection.deadline !== null && connection.deadline <= now) connection.timeOut();
      else if (connection.inFlight === 0 && now - connection.idleSince >= IDLE_MS) connection.close();
    }
    if (this.waiting.length > 0) {
      this.waiting = this.waiting.filter((exchange) => {
        if (exchange.settled) return false;
        if (exchange.deadline > now) return true;
        exchange.answer({ kind: 'no_response', error: 'timeout', privateRefused: false });
        return false;
      });
    }
  }

  close(): void {
    this.closing = true;
    for (const exchange of this.waiting.splice(0)) {
      exchange.answer({ kind: 'no_response', error: 'client closed', privateRefused: false });
    }
    for (const connection of this.connections) connection.close();
  }

  /**
   * Each waiting exchange goes to the connection with the fewest in flight; a new connection is
   * opened (up to the limit) rather than queueing behind a busy one, and nothing is queued
   * deeper than `depth`. What does not fit waits for an answer to make room.
   */
  private readonly spread = (): void => {
    this.spreadScheduled = false;
    while (this.waiting.length > 0) {
      const exchange = this.waiting[0]!;
      if (exchange.settled) {
        this.waiting.shift();
        continue;
      }
      let target: Connection | null = null;
      for (const c of this.connections) {
        if (!c.usable) continue;
        if (target === null || c.inFlight < target.inFlight) target = c;
      }
      // A connection on its way out still counts against the limit until it has closed.
      const room = this.connections.size < this.options.maxConnections;
      if ((target === null || target.inFlight > 0) && room) {
        this.waiting.shift();
        this.open(exchange);
        continue;
      }
      if (target === null || target.inFlight >= this.depth) break;
      this.waiting.shift();
      target.assign(exchange);
    }
  };

  private open(exchange: Exchange): void {
    const { target, options } = this;
    const guarded = !options.allowPrivate;
    if (guarded && isIP(target.hostname) !== 0 && isPrivateAddress(target.hostname)) {
      // Refused before dialling, so "refused" and "connection refused" cannot be told apart
      // to probe internal ports.
      exchange.answer({ kind: 'no_response', error: 'private address refused', privateRefused: true });
      return;
    }
    const socket = this.dial(guarded);
    const connection = new Connection(
      socket,
      options.readCap,
      {
        free: () => {
          if (this.waiting.length > 0) this.spread();
        },
        closed: (c, unanswered, pipelined) => this.closed(c, unanswered, pipelined),
      },
      (s) => (guarded ? vetAddress(s) : null),
    );
    this.connections.add(connection);
    connection.assign(exchange);
    const onConnected = () => {
      socket.setTimeout(0);
      connection.connected();
    };
    socket.once(target.https ? 'secureConnect' : 'connect', onConnected);
    socket.setTimeout(options.connectTimeoutMs, () => socket.destroy(timeoutError()));
  }

  private dial(guarded: boolean): Socket {
    const { hostname, port, https } = this.target;
    const lookup = guarded ? { lookup: publicOnlyLookup } : {};
    if (https) {
      return tlsConnect({
        host: hostname,
        port,
        ...(isIP(hostname) === 0 ? { servername: hostname } : {}),
        ALPNProtocols: ['http/1.1'],
        ...lookup,
      });
    }
    return netConnect({ host: hostname, port, ...lookup });
  }

  private closed(connection: Connection, unanswered: Exchange[], pipelined: boolean): void {
    this.connections.delete(connection);
    if (pipelined && this.depth > 1) {
      this.depth = 1;
      this.options.logger?.warn(
        { origin: this.origin },
        'webhook receiver dropped pipelined requests; sending it one request at a time per connection',
      );
    }
    // Sent once more each, on a fresh connection; a second loss is the attempt's answer.
    const now = performance.now();
    const again: Exchange[] = [];
    for (const exchange of unanswered) {
      if (exchange.settled) continue;
      if (this.closing) {
        exchange.answer({ kind: 'no_response', error: 'client closed', privateRefused: false });
      } else if (exchange.retriedOnFreshConnection || exchange.deadline <= now) {
        exchange.answer({
          kind: 'no_response',
          error: exchange.deadline <= now ? 'timeout' : 'connection closed',
          privateRefused: false,
        });
      } else {
        exchange.retriedOnFreshConnection = true;
        again.push(exchange);
      }
    }
    if (again.length > 0 || this.waiting.length > 0) {
      this.waiting = [...again, ...this.waiting];
      this.spread();
    }
  }
}

function timeoutError(): Error {
  return Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' });
}

/**
 * The decision is made on the address the socket actually connected to, before a byte of
 * the request is written: a DNS answer that changed since any earlier lookup cannot slip a
 * private address past it.
 */
function vetAddress(socket: Socket): ExchangeRefusal | null {
  const address = socket.remoteAddress;
  if (address === undefined || isPrivateAddress(address))
    return { error: 'private address refused', privateRefused: true };
  return null;
}
