/**
 * A standalone SMSC for tests and local runs (`smsgw smsc-sim`): accepts binds, answers
 * submits by decisions §8, sends receipts and injected MO messages. Not a store-and-forward
 * SMSC: what it holds is lost when it closes, which is what a test of an SMSC crash wants.
 */
import net from 'node:net';
import tls from 'node:tls';
import { pino } from 'pino';
import type { Link } from '../session/index.js';
import { DeliveryQueue } from './delivery-queue.js';
import { serveEsme } from './esme-session.js';
import { MessageIds } from './message-ids.js';
import { moPdus } from './mo.js';
import { SIMULATOR_DEFAULTS, type ResolvedSimulatorOptions, type SmscSimulatorOptions } from './options.js';
import { SmscStats } from './stats.js';

export interface SmscSimulator {
  readonly host: string;
  readonly port: number;
  readonly stats: SmscStats;
  /** ESME connections open now. */
  readonly connections: () => number;
  /**
   * Sends a handset message to the bound ESME (several deliver_sm when long). Resolves true
   * once every part is acknowledged, false if the simulator gave up or closed first.
   */
  injectMo(from: string, to: string, text: string): Promise<boolean>;
  /** Stops listening and drops every connection at once, like a crashed SMSC. */
  close(): Promise<void>;
}

function resolve(options: SmscSimulatorOptions): ResolvedSimulatorOptions {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const merged = { ...SIMULATOR_DEFAULTS, ...defined } as ResolvedSimulatorOptions;
  return {
    ...merged,
    receiptIdFormat: options.receiptIdFormat ?? merged.idFormat,
    logger: options.logger ?? pino({ level: 'silent' }),
  };
}

export async function createSmscSimulator(input: SmscSimulatorOptions = {}): Promise<SmscSimulator> {
  const options = resolve(input);
  const stats = new SmscStats();
  const deliveries = new DeliveryQueue(stats, {
    responseTimeoutMs: options.deliverTimeoutMs,
    redeliveryDelayMs: options.redeliveryDelayMs,
    maxAttempts: options.maxDeliveryAttempts,
    logger: options.logger,
  });
  const parts = { options, stats, ids: new MessageIds(), deliveries };
  const links = new Set<Link>();
  let moRef = 0;

  const serve = (socket: net.Socket) => {
    const link = serveEsme(socket, parts);
    links.add(link);
    void link.closed.then(() => links.delete(link));
  };
  const server = options.tls ? tls.createServer(options.tls, serve) : net.createServer(serve);
  // A client that fails the TLS handshake never becomes a session; it must not take the server down.
  server.on('tlsClientError', (err) => options.logger.warn({ err }, 'tls handshake failed'));
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host, () => {
      server.removeListener('error', fail);
      ok();
    });
  });
  const port = (server.address() as net.AddressInfo).port;
  options.logger.info({ host: options.host, port }, 'smsc simulator listening');

  return {
    host: options.host,
    port,
    stats,
    connections: () => links.size,
    async injectMo(from, to, text) {
      moRef = (moRef + 1) & 0xff;
      const acks = await Promise.all(moPdus(from, to, text, moRef).map((pdu) => deliveries.add(pdu)));
      return acks.every(Boolean);
    },
    async close() {
      deliveries.close();
      const closing = new Promise<void>((ok) => server.close(() => ok()));
      for (const link of links) link.destroy('simulator closed');
      await Promise.all([closing, ...[...links].map((l) => l.closed)]);
      options.logger.info({ port }, 'smsc simulator closed');
    },
  };
}
