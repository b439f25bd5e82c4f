/**
 * Keep-alive connections per receiver origin, at most `max` of them, with the requests that
 * wait for one. Deadlines and idle connections are checked by one coarse timer for the whole
 * client rather than a timer per attempt.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
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
  readonly readCap: number;
  readonly allowPrivate: boolean;
  /** A connection attempt's own limit (the exchange's deadline applies too). */
  readonly connectTimeoutMs: number;
}

/**
 * Idle connections are closed after this: below the 5 s keep-alive timeout of Node's http
 * server (and most others), so we close first and rarely send on a socket being closed.
 */
const IDLE_MS = 4_000;

export class OriginPool {
  private readonly connections = new Set<Connection>();
  /** Most recently used last: taken from the end, so rarely used ones age out. */
  private idle: Connection[] = [];
  private waiting: Exchange[] = [];

  constructor(
    private readonly target: Target,
    private readonly options: PoolOptions,
  ) {}

  get empty(): boolean {
    return this.connections.size === 0 && this.waiting.length === 0;
  }

  dispatch(exchange: Exchange): void {
    const idle = this.idle.pop();
    if (idle) return idle.assign(exchange);
    if (this.connections.size < this.options.maxConnections) return this.open(exchange);
    this.waiting.push(exchange);
  }

  /** Deadlines of exchanges in flight or waiting, and connections idle too long. */
  sweep(now: number): void {
    for (const connection of this.connections) {
      if (connection.busy && connection.deadline !== null && connection.deadline <= now) connection.timeOut();
    }
    if (this.waiting.length > 0) {
      const stillWaiting: Exchange[] = [];
      for (const exchange of this.waiting) {
        if (exchange.settled) continue;
        if (exchange.deadline <= now) {
          exchange.answer({ kind: 'no_response', error: 'timeout', privateRefused: false });
        } else stillWaiting.push(exchange);
      }
      this.waiting = stillWaiting;
    }
    if (this.idle.length > 0) {
      const keep: Connection[] = [];
      for (const connection of this.idle) {
        if (now - connection.idleSince >= IDLE_MS) connection.close();
        else keep.push(connection);
      }
      this.idle = keep;
    }
  }

  close(): void {
    for (const exchange of this.waiting.splice(0)) {
      exchange.answer({ kind: 'no_response', error: 'client closed', privateRefused: false });
    }
    for (const connection of this.connections) connection.close();
  }

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
        free: (c) => this.free(c),
        closed: (c, retry) => this.closed(c, retry),
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

  private free(connection: Connection): void {
    while (this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      if (!next.settled) return connection.assign(next);
    }
    this.idle.push(connection);
  }

  private closed(connection: Connection, retry: Exchange | null): void {
    this.connections.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    if (retry && !retry.settled) this.dispatch(retry);
    // Room for a new connection: start the next waiting exchange on it.
    while (this.waiting.length > 0 && this.connections.size < this.options.maxConnections) {
      const next = this.waiting.shift()!;
      if (!next.settled) this.open(next);
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
