import { connect, type Socket } from 'node:net';

export interface Http1Response {
  readonly status: number;
  readonly body: Buffer;
}

/**
 * One keep-alive HTTP/1.1 connection with one request in flight, for the load generator.
 *
 * The load generator shares the machine's two cores with the server it measures, so its own
 * cost comes off the server's numbers: undici's Pool took about 60 µs of CPU per request plus
 * its share of garbage collection, where writing prepared request bytes to a socket and reading
 * the status and Content-Length of the answer takes a fraction of that. Only what smsgw sends
 * is understood: a status line, headers with Content-Length, and that many body bytes.
 */
export class Http1Connection {
  private chunks: Buffer[] = [];
  private length = 0;
  private waiting: { resolve: (r: Http1Response) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.length += chunk.length;
      this.parse();
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.reject(this.failure);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed by the server')));
  }

  static open(origin: string): Promise<Http1Connection> {
    const url = new URL(origin);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: url.hostname, port: Number(url.port) }, () => {
        socket.off('error', reject);
        resolve(new Http1Connection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Sends prepared request bytes (see encodeRequest) and resolves with the whole response. */
  request(bytes: Buffer): Promise<Http1Response> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiting) return Promise.reject(new Error('one request at a time on a connection'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): void {
    if (!this.waiting) return;
    const data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
    this.chunks = [data];
    const headerEnd = data.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = data.toString('latin1', 0, headerEnd);
    const status = Number(head.slice(9, 12));
    const match = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!match) {
      this.fail(new Error(`response without Content-Length: ${head.slice(0, 200)}`));
      return;
    }
    const end = headerEnd + 4 + Number(match[1]);
    if (data.length < end) return;
    const body = data.subarray(headerEnd + 4, end);
    const rest = data.subarray(end);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.length = rest.length;
    const waiting = this.waiting;
    this.waiting = null;
    waiting.resolve({ status, body });
  }

  private fail(error: Error): void {
    this.socket.destroy(error);
  }
}

/** The bytes of one request, built once and sent as often as the bench cycles through it. */
export function encodeRequest(
  origin: string,
  method: string,
  path: string,
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${new URL(origin).host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  if (body !== undefined) lines.push('content-type: application/json', `content-length: ${payload.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}
