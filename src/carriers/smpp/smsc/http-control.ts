/**
 * A tiny HTTP side door for a running simulator: POST /mo {from, to, body} injects a handset
 * message, GET /stats shows counts. For local runs and demos; tests call the simulator directly.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SmscSimulator } from './simulator.js';

/** How long POST /mo waits for the ESME's deliver_sm_resp before answering 202 (still queued). */
const MO_ACK_WAIT_MS = 5_000;

export interface HttpControl {
  readonly port: number;
  close(): Promise<void>;
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function moFields(value: unknown): { from: string; to: string; body: string } | null {
  if (typeof value !== 'object' || value === null) return null;
  const { from, to, body } = value as Record<string, unknown>;
  return typeof from === 'string' && typeof to === 'string' && typeof body === 'string' && body !== ''
    ? { from, to, body }
    : null;
}

export async function startHttpControl(sim: SmscSimulator, host: string, port: number): Promise<HttpControl> {
  const server = http.createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET' && req.url === '/stats') {
        const { binds, unbinds, deliveredOk, deliveredNacked, throttled, submits } = sim.stats;
        return reply(res, 200, {
          binds,
          unbinds,
          submits: submits.length,
          deliveredOk,
          deliveredNacked,
          throttled,
        });
      }
      if (req.method !== 'POST' || req.url !== '/mo')
        return reply(res, 404, { error: 'POST /mo or GET /stats' });
      const mo = moFields(await readJson(req).catch(() => null));
      if (!mo) return reply(res, 400, { error: 'expected JSON {"from", "to", "body"}' });
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<'pending'>(
        (ok) => (timer = setTimeout(() => ok('pending'), MO_ACK_WAIT_MS)),
      );
      const acked = await Promise.race([sim.injectMo(mo.from, mo.to, mo.body), waited]);
      clearTimeout(timer);
      if (acked === 'pending') return reply(res, 202, { delivered: false, queued: true });
      reply(res, acked ? 200 : 502, { delivered: acked });
    })().catch((err: unknown) => reply(res, 500, { error: String(err) }));
  });
  await new Promise<void>((ok) => server.listen(port, host, ok));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
