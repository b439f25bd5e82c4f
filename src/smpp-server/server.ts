/**
 * The SMPP 3.4 server for customers (decisions §21): a TCP (or TLS) listener whose binds
 * submit as an account, and the sender of their queued deliver_sm.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from 'pino';
import type { SendDeps } from '../app/send-message.js';
import type { Link } from '../carriers/smpp/session/index.js';
import type { SmppServerConfig } from '../config/config.js';
import { startDeliverer } from './deliverer.js';
import { serveCustomer } from './session.js';
import { createSubmitter } from './submit.js';

export interface SmppServer {
  readonly port: number;
  /** Customer connections open now. */
  connections(): number;
  /** Queued deliver_sm may be due now. */
  wake(): void;
  close(): Promise<void>;
}

export interface SmppServerDeps {
  readonly config: SmppServerConfig;
  readonly host: string;
  readonly node: string;
  readonly send: SendDeps;
  readonly logger: Logger;
}

export async function startSmppServer(deps: SmppServerDeps): Promise<SmppServer> {
  const { config, send } = deps;
  const logger = deps.logger.child({ component: 'smpp-server' });
  const { store, now } = send;
  // Binds this node held before a restart under the same SMSGW_NODE_ID are gone with the process.
  await store.smpp.binds.removeNode(deps.node);
  const submitter = createSubmitter(send, logger, config.reassemblyMs);
  const deliverer = startDeliverer({ deliveries: store.smpp.deliveries, node: deps.node, now, logger });
  const links = new Set<Link>();
  const serve = (socket: net.Socket) => {
    const link = serveCustomer(socket, {
      store,
      node: deps.node,
      now,
      logger,
      submitter,
      idleMs: config.idleMs,
      onReceiver: (session, ready) => deliverer.receiverReady(session, ready),
    });
    links.add(link);
    void link.closed.then(() => links.delete(link));
  };
  const server = config.tls
    ? tls.createServer(
        { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) },
        serve,
      )
    : net.createServer(serve);
  // A client that fails the TLS handshake never becomes a session; it must not take the server down.
  server.on('tlsClientError', (err) => logger.warn({ err }, 'smpp tls handshake failed'));
  server.on('error', (err) => logger.error({ err }, 'smpp server error'));
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(config.port, deps.host, () => {
      server.removeListener('error', fail);
      ok();
    });
  });
  const port = (server.address() as net.AddressInfo).port;
  logger.info({ port, tls: config.tls !== null }, 'smpp server listening');
  return {
    port,
    connections: () => links.size,
    wake: () => deliverer.wake(),
    async close() {
      const closing = new Promise<void>((ok) => server.close(() => ok()));
      // Binds are told to go (unbind), then cut if they do not.
      await Promise.all(
        [...links].map(async (link) => {
          await link.request({ command: 'unbind', commandStatus: 0 }, 2000);
          await link.end('server stopping', 1000);
        }),
      );
      await closing;
      await deliverer.stop();
      submitter.close();
      await store.smpp.binds.removeNode(deps.node).catch(() => undefined);
      logger.info({ port }, 'smpp server closed');
    },
  };
}
