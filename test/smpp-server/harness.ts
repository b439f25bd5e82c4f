import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import smpp, { type SmppPdu, type SmppSession } from 'smpp';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';

export const ADMIN = 'smpp-admin-token';

/** smsgw with the simulator carrier and its SMPP server on an ephemeral port. */
export interface SmppServerHarness {
  readonly server: RunningServer;
  readonly db: TestDatabase;
  readonly origin: string;
  readonly smppPort: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  http(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** An account with any sender and the given SMPP credentials. */
  customer(
    systemId: string,
    password: string,
    smpp?: Record<string, unknown>,
    account?: Record<string, unknown>,
  ): Promise<{ id: number; key: string }>;
  stop(): Promise<void>;
}

export async function startSmppHarness(
  engine: 'sqlite' | 'postgres',
  env: Record<string, string> = {},
): Promise<SmppServerHarness> {
  const db = await createTestDatabase(engine);
  const config = loadConfig({
    SMSGW_DATABASE_URL: db.url,
    SMSGW_PORT: '0',
    SMSGW_ADMIN_TOKEN: ADMIN,
    SMSGW_SIM_DELAY_MS: '50',
    SMSGW_LOG_LEVEL: 'silent',
    SMSGW_SMPP_SERVER_PORT: '0',
    ...env,
  });
  const server = await startServer(config, pino({ level: 'silent' }));
  const origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  let names = 0;
  const http = async (method: string, path: string, token: string, body?: unknown) => {
    const r = await fetch(`${origin}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    return { status: r.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  return {
    server,
    db,
    origin,
    smppPort: server.smpp!.port,
    http,
    async customer(systemId, password, settings = {}, account = {}) {
      const created = await http('POST', '/admin/v1/accounts', ADMIN, {
        name: `smpp-${++names}-${systemId}`,
        any_sender: true,
        ...account,
      });
      if (created.status !== 201) throw new Error(`account: ${JSON.stringify(created.body)}`);
      const id = created.body.accountID as number;
      const set = await http('PUT', `/admin/v1/accounts/${id}/smpp`, ADMIN, {
        system_id: systemId,
        password,
        ...settings,
      });
      if (set.status !== 200) throw new Error(`smpp user: ${JSON.stringify(set.body)}`);
      return { id, key: created.body.api_key as string };
    },
    async stop() {
      await server.stop();
      await db.drop();
    },
  };
}

/** The npm `smpp` client with promises, recording the deliver_sm it is sent (and answering them). */
export class Client {
  readonly delivered: SmppPdu[] = [];
  /** What deliver_sm is answered with; change it to test redelivery. */
  deliverStatus = 0;
  private constructor(readonly session: SmppSession) {}

  private isClosed = false;
  /** The server sent unbind. */
  unbound = false;

  static async connect(port: number): Promise<Client> {
    const session = smpp.connect({ host: '127.0.0.1', port });
    const client = new Client(session);
    session.on('error', () => {});
    session.on('close', () => (client.isClosed = true));
    session.on('unbind', (pdu) => {
      client.unbound = true;
      session.send(pdu.response());
    });
    session.on('deliver_sm', (pdu) => {
      if (client.deliverStatus === 0) client.delivered.push(pdu);
      session.send(pdu.response({ command_status: client.deliverStatus }));
    });
    await new Promise<void>((ok) => session.once('connect', () => ok()));
    return client;
  }

  call(command: string, options: Record<string, unknown> = {}): Promise<SmppPdu> {
    return new Promise((resolve) => this.session.send(new smpp.PDU(command, options), resolve));
  }

  bind(systemId: string, password: string, mode = 'bind_transceiver') {
    return this.call(mode, { system_id: systemId, password });
  }

  closed(): Promise<void> {
    return new Promise((ok) => {
      if (this.isClosed) ok();
      else this.session.on('close', () => ok());
    });
  }

  close(): Promise<void> {
    const closed = this.closed();
    if (!this.isClosed) this.session.destroy();
    return closed;
  }
}

export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
