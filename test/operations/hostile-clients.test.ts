import { connect, type AddressInfo, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/app/accounts.js';
import { loadConfig } from '../../src/config/config.js';
import { buildApp, type App } from '../../src/http/app.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';

/** decisions §12 and issue 16 item 7, over real sockets: slow, stalled and oversized requests. */
describe('hostile and broken clients', () => {
  let db: TestDatabase;
  let app: App;
  let port: number;
  let key: string;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    const store = createStore(db.conn);
    app = await buildApp({
      config: loadConfig({
        SMSGW_REQUEST_TIMEOUT_MS: '1000',
        SMSGW_MAX_BODY_BYTES: '600000',
        SMSGW_MAX_CONNECTIONS: '250',
      }),
      store,
      logger: pino({ level: 'silent' }),
      now: () => Date.now(),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
    key = (await createAccount(store, { name: 'hostile', anySender: true }, Date.now())).key.apiKey;
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });
  afterAll(async () => {
    await app.close();
    await db.drop();
  });

  interface Exchange {
    readonly socket: Socket;
    /** Everything the server sent, once it closed the connection. */
    readonly closed: Promise<{ text: string; at: number }>;
  }

  const open = async (first: string): Promise<Exchange> => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    const closed = new Promise<{ text: string; at: number }>((resolve) =>
      socket.once('close', () => resolve({ text, at: Date.now() })),
    );
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    if (first !== '') socket.write(first);
    return { socket, closed };
  };

  const postHead = (length: number | 'chunked') =>
    `POST /v1/sms/message HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
    (length === 'chunked' ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`) +
    '\r\n';

  const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as unknown;

  it('answers a body over SMSGW_MAX_BODY_BYTES with 413 and closes the connection', async () => {
    const announced = await open(postHead(700_000));
    const { text } = await announced.closed;
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(bodyOf(text)).toEqual({ status_code: 413, status_msg: 'Payload Too Large' });

    // Chunked: the size shows only while reading, and reading stops at the limit.
    const chunked = await open(postHead('chunked'));
    const part = `{"to":["+61491570156"],"from":"Acme","body":"${'x'.repeat(400_000)}`;
    chunked.socket.write(`${part.length.toString(16)}\r\n${part}\r\n`);
    chunked.socket.write(`${part.length.toString(16)}\r\n${part}\r\n`);
    const cut = await chunked.closed;
    expect(cut.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(bodyOf(cut.text)).toEqual({ status_code: 413, status_msg: 'Payload Too Large' });
  });

  it('answers a request stalled mid-body with 408 at SMSGW_REQUEST_TIMEOUT_MS and closes it', async () => {
    const started = Date.now();
    const stalled = await open(`${postHead(200)}{"to":["+6149157`);
    const { text, at } = await stalled.closed;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(bodyOf(text)).toEqual({ status_code: 408, status_msg: 'Request Timeout' });
    // Cut once the timeout has passed, and not long after (the server checks every 250 ms here).
    expect(at - started).toBeGreaterThanOrEqual(900);
    expect(at - started).toBeLessThan(5_000);
  });

  it('closes a connection that never sends a byte', async () => {
    const silent = await open('');
    const { text } = await silent.closed;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('cuts a client that never finishes its headers (slowloris)', async () => {
    const slow = await open('GET /v1/sms/messages HTTP/1.1\r\nHost: x\r\n');
    const timer = setInterval(() => slow.socket.write('X-Padding: a\r\n'), 200);
    try {
      const { text } = await slow.closed;
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(timer);
    }
  });

  it('cuts 200 connections stalled in the middle of a 450 KB body at the timeout, and keeps serving', async () => {
    // Each announces 450 KB (within the limit) and sends half of it; Node would wait for the
    // rest for minutes, holding every half-read body (+88 MB before this timeout existed).
    const half = `{"to":["+61491570156"],"from":"Acme","body":"${'y'.repeat(225_000)}`;
    const stalled = await Promise.all(Array.from({ length: 200 }, () => open(`${postHead(450_000)}${half}`)));
    const started = Date.now();
    const cut = await Promise.all(stalled.map((s) => s.closed));
    expect(cut.filter((r) => /^HTTP\/1\.1 408 /.test(r.text))).toHaveLength(200);
    expect(Math.max(...cut.map((r) => r.at)) - started).toBeLessThan(5_000);
    const count = await new Promise<number>((resolve, reject) =>
      app.server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
    );
    expect(count).toBe(0);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  });
});

describe('the connection cap', () => {
  it('closes connections beyond SMSGW_MAX_CONNECTIONS as they arrive', async () => {
    const db = await createTestDatabase('sqlite');
    const app = await buildApp({
      config: loadConfig({ SMSGW_MAX_CONNECTIONS: '3' }),
      store: createStore(db.conn),
      logger: pino({ level: 'silent' }),
      now: () => Date.now(),
    });
    const sockets: Socket[] = [];
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      const dial = async () => {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {});
        sockets.push(socket);
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        return socket;
      };
      for (let i = 0; i < 3; i++) await dial();
      const fourth = await dial();
      await new Promise<void>((resolve) => fourth.once('close', () => resolve()));
      // One of the three goes away: there is room again.
      sockets[0]!.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const again = await dial();
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        again.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('\r\n\r\n')) resolve(text);
        });
        again.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      for (const socket of sockets) socket.destroy();
      await app.close();
      await db.drop();
    }
  });
});
