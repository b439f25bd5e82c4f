import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Http1Connection, encodeRequest } from './http1.js';

export interface LoadRequest {
  readonly method: 'GET' | 'POST';
  /** Path and query, e.g. /v1/sms/messages?limit=10 */
  readonly path: string;
  readonly body?: string;
}

/** Plain data, so the same spec runs in this thread or is posted to a worker. */
export interface LoadSpec {
  readonly origin: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Sent in order, cycled when `count` is larger. */
  readonly requests: readonly LoadRequest[];
  readonly count: number;
  /** Stop sending after this long, even if fewer than `count` requests went out. */
  readonly maxDurationMs?: number;
  readonly concurrency: number;
  readonly expectStatus: number;
}

export interface LoadResult {
  /** One entry per request sent, milliseconds from send to the last body byte. */
  readonly latenciesMs: Float64Array;
  readonly elapsedMs: number;
  /** Responses with another status than expected, and failed requests. */
  readonly unexpected: number;
  readonly firstUnexpected: string | null;
}

/**
 * Where the load generator runs. `worker` keeps it off the server's event loop, so what is
 * measured is the server's time, not the two of them taking turns on one thread.
 */
export const LOAD_PLACES = ['worker', 'main'] as const;
export type LoadPlace = (typeof LOAD_PLACES)[number];

export function runLoadIn(place: LoadPlace, spec: LoadSpec): Promise<LoadResult> {
  if (place === 'main') return runLoad(spec);
  const worker = new Worker(workerEntry(), { eval: true, workerData: spec });
  return new Promise((resolve, reject) => {
    worker.once('message', (result: LoadResult) => resolve(result));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load worker exited with code ${code}`));
    });
  });
}

/**
 * bench/ runs under tsx, whose loader hooks do not reach worker threads on Node 20: the worker
 * registers them itself before importing its TypeScript entry point.
 */
function workerEntry(): string {
  const here = fileURLToPath(import.meta.url);
  const entry = new URL(`./load-worker${extname(here)}`, import.meta.url).href;
  const register =
    extname(here) === '.ts' ? `await import('tsx/esm/api').then((tsx) => tsx.register());` : '';
  return `(async () => { ${register} await import(${JSON.stringify(entry)}); })();`;
}

/** `concurrency` keep-alive connections, one request in flight on each (no pipelining). */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const prepared = spec.requests.map((r) => ({
    label: `${r.method} ${r.path}`,
    bytes: encodeRequest(spec.origin, r.method, r.path, spec.headers, r.body),
  }));
  const latencies = new Float64Array(spec.count);
  let next = 0;
  let unexpected = 0;
  let firstUnexpected: string | null = null;
  const connections = await Promise.all(
    Array.from({ length: spec.concurrency }, () => Http1Connection.open(spec.origin)),
  );

  const started = performance.now();
  const deadline = started + (spec.maxDurationMs ?? Infinity);
  const client = async (slot: number) => {
    for (let i = next++; i < spec.count && performance.now() < deadline; i = next++) {
      const request = prepared[i % prepared.length]!;
      const sentAt = performance.now();
      try {
        const response = await connections[slot]!.request(request.bytes);
        if (response.status !== spec.expectStatus) {
          unexpected += 1;
          firstUnexpected ??= `${request.label} → ${response.status} ${response.body.toString('utf8', 0, 200)}`;
        }
      } catch (error) {
        unexpected += 1;
        firstUnexpected ??= `${request.label} → ${String(error)}`;
        // A broken connection is replaced, so one failure does not end this client.
        connections[slot]!.close();
        connections[slot] = await Http1Connection.open(spec.origin);
      }
      latencies[i] = performance.now() - sentAt;
    }
  };

  await Promise.all(connections.map((_, slot) => client(slot)));
  const elapsedMs = performance.now() - started;
  for (const connection of connections) connection.close();
  // Each client takes one index past the last it sent; those were never sent.
  const sent = Math.min(spec.count, next - spec.concurrency);
  return { latenciesMs: latencies.slice(0, sent), elapsedMs, unexpected, firstUnexpected };
}
