/**
 * The webhook client against receivers that answer with exact bytes: the framings and
 * connection behaviours real servers use, which Node's own http server never produces.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookHttpClient, type WebhookHttpClient } from '../../src/webhooks/http-client.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface RawReceiver {
  readonly url: string;
  /** Connections accepted so far. */
  readonly connections: Socket[];
  /** Requests read so far (heads and bodies as text). */
  readonly requests: string[];
}

/**
 * A receiver that reads each request (by its Content-Length) and calls `answer` with the
 * socket, the request's index on that connection and its index overall.
 */
async function rawReceiver(answer: (socket: Socket, onConnection: number, overall: number) => void) {
  const connections: Socket[] = [];
  const requests: string[] = [];
  const server: Server = createServer((socket) => {
    connections.push(socket);
    let buffered = '';
    let onConnection = 0;
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        requests.push(buffered.slice(0, end + 4 + length));
        buffered = buffered.slice(end + 4 + length);
        answer(socket, onConnection++, requests.length - 1);
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const s of connections) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook?token=t`, connections, requests } satisfies RawReceiver;
}

function client(timeoutMs = 2_000): WebhookHttpClient {
  const c = createWebhookHttpClient({ timeoutMs, allowPrivate: true, maxConnectionsPerOrigin: 1 });
  cleanups.push(() => c.close());
  return c;
}

const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_1' };

describe('webhook client framing', () => {
  it('reads a chunked answer across several writes and reuses the connection', async () => {
    const r = await rawReceiver((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel');
      setTimeout(() => socket.write('lo\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n'), 10);
    });
    const c = client();
    const first = await c.post(r.url, headers, '{"a":1}');
    const second = await c.post(r.url, headers, '{"a":2}');
    expect(first).toMatchObject({ kind: 'accepted', status: 200, responseExcerpt: 'hello world' });
    expect(second).toMatchObject({ kind: 'accepted', responseExcerpt: 'hello world' });
    expect(r.connections).toHaveLength(1);
  });

  it('sends the path with its query, the Host header and the body with its length', async () => {
    const r = await rawReceiver((socket) => socket.write('HTTP/1.1 204 No Content\r\n\r\n'));
    await client().post(r.url, headers, '{"text":"héllo"}');
    const [request] = r.requests;
    expect(request).toMatch(/^POST \/hook\?token=t HTTP\/1\.1\r\n/);
    expect(request).toMatch(/\r\nhost: 127\.0\.0\.1:\d+\r\n/);
    expect(request).toContain('\r\nwebhook-id: msg_1\r\n');
    expect(request).toContain('\r\ncontent-length: 17\r\n');
    expect(Buffer.from(request!, 'latin1').toString('utf8').endsWith('{"text":"héllo"}')).toBe(true);
  });

  it('skips an informational 100 before the real answer', async () => {
    const r = await rawReceiver((socket) =>
      socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok'),
    );
    expect(await client().post(r.url, headers, '{}')).toMatchObject({
      kind: 'accepted',
      status: 201,
      responseExcerpt: 'ok',
    });
  });

  it('reads an HTTP/1.0 answer without a length up to the close, then opens a new connection', async () => {
    const r = await rawReceiver((socket) => socket.end('HTTP/1.0 500 Oops\r\n\r\nno length here'));
    const c = client();
    expect(await c.post(r.url, headers, '{}')).toMatchObject({
      kind: 'retry',
      status: 500,
      responseExcerpt: 'no length here',
    });
    expect(await c.post(r.url, headers, '{}')).toMatchObject({ kind: 'retry', status: 500 });
    expect(r.connections).toHaveLength(2);
  });

  it('does not reuse a connection the receiver said it closes', async () => {
    const r = await rawReceiver((socket) =>
      socket.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'),
    );
    const c = client();
    await c.post(r.url, headers, '{}');
    await c.post(r.url, headers, '{}');
    expect(r.connections).toHaveLength(2);
  });

  it('sends again on a fresh connection when a kept-alive one was closed under it', async () => {
    // The receiver answers the first request and then drops the connection as soon as the
    // second arrives on it, without a byte of answer: what a server's idle timeout racing our
    // send looks like. The second request must still arrive, once, on a new connection.
    const r = await rawReceiver((socket, onConnection) => {
      if (onConnection === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
      else socket.destroy();
    });
    const c = client();
    expect(await c.post(r.url, headers, '{"n":1}')).toMatchObject({ kind: 'accepted' });
    expect(await c.post(r.url, headers, '{"n":2}')).toMatchObject({ kind: 'accepted' });
    expect(r.connections).toHaveLength(2);
    expect(r.requests.filter((q) => q.endsWith('{"n":2}'))).toHaveLength(2);
  });

  it('gives up the connection, not the attempt, when a second answer arrives unasked', async () => {
    const r = await rawReceiver((socket) =>
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n',
      ),
    );
    const c = client();
    expect(await c.post(r.url, headers, '{}')).toMatchObject({ kind: 'accepted' });
    expect(await c.post(r.url, headers, '{}')).toMatchObject({ kind: 'accepted' });
    expect(r.connections).toHaveLength(2);
  });

  it('retries an answer it cannot read, naming it', async () => {
    const r = await rawReceiver((socket) => socket.write('SMTP ready\r\n\r\n'));
    expect(await client().post(r.url, headers, '{}')).toMatchObject({
      kind: 'retry',
      status: null,
      error: 'bad response',
    });
  });

  it('refuses a response with two different Content-Lengths', async () => {
    const r = await rawReceiver((socket) =>
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok!'),
    );
    expect(await client().post(r.url, headers, '{}')).toMatchObject({ kind: 'retry', error: 'bad response' });
  });

  it('waits for a free connection when the origin is at its limit, then times out a waiter', async () => {
    const r = await rawReceiver(() => {}); // never answers
    const c = client(200);
    const results = await Promise.all([c.post(r.url, headers, '{}'), c.post(r.url, headers, '{}')]);
    expect(results.map((x) => x.error)).toEqual(['timeout', 'timeout']);
    expect(r.connections).toHaveLength(1);
  });
});

describe('webhook client over https', () => {
  it('speaks TLS with the host name as SNI and refuses a certificate no CA vouches for', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createServer: createTlsServer } = await import('node:tls');
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-webhook-tls-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ]),
      { stdio: 'ignore' },
    );
    let sni: string | undefined;
    const server = createTlsServer(
      {
        key: readFileSync(join(dir, 'key.pem')),
        cert: readFileSync(join(dir, 'cert.pem')),
        SNICallback: (name, done) => {
          sni = name;
          done(null, undefined);
        },
      },
      (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'),
    );
    let answered = false;
    server.on('secureConnection', () => (answered = true));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const result = await client().post(`https://localhost:${port}/hook`, headers, '{}');
    expect(result).toMatchObject({ kind: 'retry', status: null });
    expect(result.error).toMatch(
      /^connection failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)$/,
    );
    expect(sni).toBe('localhost');
    expect(answered).toBe(false);
  });
});

describe('webhook client pipelining', () => {
  it('queues requests behind each other on a busy connection and matches each answer to its own request', async () => {
    const r = await rawReceiver((socket, _onConnection, overall) => {
      // Answers carry the request's body back, so a mismatched answer would show.
      const body = r.requests[overall]!.split('\r\n\r\n')[1]!;
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    });
    const c = client();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => c.post(r.url, headers, `{"n":${i}}`)),
    );
    expect(results.map((x) => x.responseExcerpt)).toEqual([0, 1, 2, 3, 4].map((i) => `{"n":${i}}`));
    expect(r.connections).toHaveLength(1);
  });

  it('sends the rest again when a receiver drops pipelined requests, and stops pipelining to it', async () => {
    let unansweredMost = 0;
    const pending = new Map<Socket, number>();
    const r = await rawReceiver((socket, onConnection) => {
      const open = (pending.get(socket) ?? 0) + 1;
      pending.set(socket, open);
      unansweredMost = Math.max(unansweredMost, open);
      // The first connection answers one request and hangs up on the rest queued behind it.
      if (r.connections.indexOf(socket) === 0) {
        if (onConnection === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
        else socket.end();
        return;
      }
      setTimeout(() => {
        pending.set(socket, pending.get(socket)! - 1);
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
      }, 5);
    });
    const c = client();
    const first = await Promise.all(
      Array.from({ length: 3 }, (_, i) => c.post(r.url, headers, `{"n":${i}}`)),
    );
    expect(first.map((x) => x.kind)).toEqual(['accepted', 'accepted', 'accepted']);
    unansweredMost = 0;
    const second = await Promise.all(
      Array.from({ length: 3 }, (_, i) => c.post(r.url, headers, `{"m":${i}}`)),
    );
    expect(second.map((x) => x.kind)).toEqual(['accepted', 'accepted', 'accepted']);
    // One request at a time on the connection from now on.
    expect(unansweredMost).toBe(1);
  });
});
