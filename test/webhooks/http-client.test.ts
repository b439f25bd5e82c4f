import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebhookHttpClient, createWebhookHttpClient } from '../../src/webhooks/http-client.js';
import { generateWebhookSecret, webhookHeaders } from '../../src/webhooks/sign.js';

interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly connections: number;
  readonly requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(handler: Handler): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      handler(req, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  cleanups.push(close);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    get connections() {
      return connections;
    },
    requests,
    close,
  };
}

function client(opts: { timeoutMs?: number; allowPrivate?: boolean; maxConnectionsPerOrigin?: number } = {}) {
  const c: WebhookHttpClient = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivate: true, ...opts });
  cleanups.push(() => c.close());
  return c;
}

const body = JSON.stringify({ messageID: 7, status: 'delivered' });
const headers = () => ({
  ...webhookHeaders('msg_7', Math.floor(Date.now() / 1000), body, [generateWebhookSecret()]),
});

function reply(status: number, text = '', extra: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain', ...extra });
    res.end(text);
  };
}

describe('createWebhookHttpClient', () => {
  it('accepts a 200 and delivers the body and headers as given', async () => {
    const r = await receiver(reply(200, 'thanks'));
    const h = headers();
    const result = await client().post(r.url, h, body);
    expect(result).toMatchObject({ kind: 'accepted', status: 200, responseExcerpt: 'thanks' });
    expect(result.error).toBeUndefined();
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]).toMatchObject({ method: 'POST', url: '/hook', body });
    expect(r.requests[0]?.headers).toMatchObject({
      'webhook-id': 'msg_7',
      'webhook-signature': h['webhook-signature'],
      'content-type': 'application/json',
    });
  });

  it('reads an empty answer as an empty excerpt', async () => {
    const r = await receiver(reply(204));
    expect(await client().post(r.url, headers(), body)).toMatchObject({
      kind: 'accepted',
      status: 204,
      responseExcerpt: '',
    });
  });

  it('keeps the first 512 bytes of a long answer, never half a character', async () => {
    // 'é' is two bytes: the first 511 bytes of 'a' leave it cut at the boundary.
    const r = await receiver(reply(200, `${'a'.repeat(511)}é and more`));
    expect((await client().post(r.url, headers(), body)).responseExcerpt).toBe('a'.repeat(511));
    // '€' is three bytes, ending exactly at the boundary.
    const whole = await receiver(reply(200, `${'a'.repeat(509)}€ and more`));
    expect((await client().post(whole.url, headers(), body)).responseExcerpt).toBe(`${'a'.repeat(509)}€`);
  });

  it('retries a 500', async () => {
    const r = await receiver(reply(500, 'boom'));
    expect(await client().post(r.url, headers(), body)).toMatchObject({
      kind: 'retry',
      status: 500,
      responseExcerpt: 'boom',
    });
  });

  it('retries a 429 and reports its Retry-After', async () => {
    const r = await receiver(reply(429, 'slow down', { 'retry-after': '7' }));
    expect(await client().post(r.url, headers(), body)).toMatchObject({
      kind: 'retry',
      status: 429,
      retryAfterMs: 7_000,
    });
  });

  it('gives up on a 400', async () => {
    const r = await receiver(reply(400, '{"error":"bad"}'));
    const result = await client().post(r.url, headers(), body);
    expect(result).toMatchObject({ kind: 'give_up', status: 400, responseExcerpt: '{"error":"bad"}' });
    expect(result.retryAfterMs).toBeUndefined();
  });

  it('gives up on a 302 without following it', async () => {
    const r = await receiver((req, res) => {
      if (req.url === '/hook') res.writeHead(302, { location: '/elsewhere' }).end();
      else res.writeHead(200).end();
    });
    expect(await client().post(r.url, headers(), body)).toMatchObject({ kind: 'give_up', status: 302 });
    expect(r.requests.map((q) => q.url)).toEqual(['/hook']);
  });

  it('retries with error "timeout" when the receiver never answers', async () => {
    const r = await receiver(() => {});
    const result = await client({ timeoutMs: 300 }).post(r.url, headers(), body);
    expect(result).toMatchObject({ kind: 'retry', status: null, error: 'timeout', responseExcerpt: '' });
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('times out a receiver that sends headers and then trickles the body, keeping the status', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const result = await client({ timeoutMs: 300 }).post(r.url, headers(), body);
    expect(result).toMatchObject({ kind: 'accepted', status: 200, responseExcerpt: 'partial' });
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('reads only the start of a 10 MB response and hangs up on the rest', async () => {
    const size = 10 * 1024 * 1024;
    let hungUp!: Promise<number>;
    const r = await receiver((req, res) => {
      hungUp = new Promise((resolve) => req.socket.once('close', () => resolve(performance.now())));
      res.writeHead(200, { 'content-length': String(size) });
      res.end(Buffer.alloc(size, 'é'));
    });
    const started = performance.now();
    const result = await client().post(r.url, headers(), body);
    expect(result).toMatchObject({ kind: 'accepted', status: 200 });
    expect(Buffer.byteLength(result.responseExcerpt)).toBeLessThanOrEqual(512);
    expect(result.responseExcerpt).toMatch(/^é{256}$/);
    expect(result.durationMs).toBeLessThan(1_000);
    // The client closed the connection itself, long before the server's 5 s keep-alive
    // timeout could have: it did not drain the body.
    expect((await hungUp) - started).toBeLessThan(1_000);
  });

  it('refuses 127.0.0.1, [::1] and localhost without connecting when private addresses are not allowed', async () => {
    const r = await receiver(reply(200));
    const guarded = client({ allowPrivate: false });
    for (const url of [r.url, `http://localhost:${r.port}/hook`, `http://[::1]:${r.port}/hook`]) {
      expect(await guarded.post(url, headers(), body)).toMatchObject({
        kind: 'give_up',
        status: null,
        error: 'private address refused',
      });
    }
    expect(r.connections).toBe(0);
  });

  it('allows 127.0.0.1 and localhost when private addresses are allowed', async () => {
    const r = await receiver(reply(200));
    const open = client({ allowPrivate: true });
    expect(await open.post(r.url, headers(), body)).toMatchObject({ kind: 'accepted' });
    expect(await open.post(`http://localhost:${r.port}/hook`, headers(), body)).toMatchObject({
      kind: 'accepted',
    });
  });

  it('reuses one keep-alive connection for sequential posts', async () => {
    const r = await receiver(reply(200, 'ok'));
    const c = client();
    for (let i = 0; i < 5; i++)
      expect(await c.post(r.url, headers(), body)).toMatchObject({ kind: 'accepted' });
    expect(r.requests).toHaveLength(5);
    expect(r.connections).toBe(1);
  });

  it('opens no more than maxConnectionsPerOrigin connections', async () => {
    const r = await receiver((_req, res) => setTimeout(() => res.writeHead(200).end(), 50));
    const c = client({ maxConnectionsPerOrigin: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, () => c.post(r.url, headers(), body)));
    expect(results.every((x) => x.kind === 'accepted')).toBe(true);
    expect(r.connections).toBe(2);
  });

  it('retries when the connection is refused', async () => {
    const r = await receiver(reply(200));
    await r.close();
    expect(await client().post(r.url, headers(), body)).toMatchObject({
      kind: 'retry',
      status: null,
      error: 'connection refused',
    });
  });

  it('retries when the receiver hangs up without answering', async () => {
    const r = await receiver((req) => req.socket.destroy());
    const result = await client().post(r.url, headers(), body);
    expect(result).toMatchObject({ kind: 'retry', status: null });
    expect(result.error).toMatch(/^connection (closed|reset)$/);
  });

  it('gives up on a URL that is invalid or not http(s), without throwing', async () => {
    const c = client();
    expect(await c.post('not a url', headers(), body)).toMatchObject({ kind: 'give_up', status: null });
    const ftp = await c.post('ftp://example.com/x', headers(), body);
    expect(ftp).toMatchObject({ kind: 'give_up', status: null });
    expect(ftp.error).toContain('scheme');
  });

  it('on close answers what is in flight as a retry and sends nothing again', async () => {
    let received = 0;
    const r = await receiver(() => {
      received += 1; // never answered
    });
    const c = client();
    const inFlight = c.post(r.url, headers(), body);
    while (received === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await c.close();
    expect(await inFlight).toMatchObject({ kind: 'retry', status: null, error: 'client closed' });
    // The request lost with its connection was not sent again on a fresh one.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toBe(1);
    expect(r.connections).toBe(1);
  });
});
