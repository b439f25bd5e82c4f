/**
 * The HTTP edge of webhook delivery: one POST, one result. It never throws, because the sender
 * stores every attempt (style.md §7) and a thrown error would be an attempt with no row.
 *
 * Why not undici (the client the field uses): a webhook attempt needs a status, one header
 * and an excerpt of the body, and at delivery-report rates the client's own cost per request
 * decides the gateway's. Measured on the project's 2-core machine against a Node http
 * receiver, 8 connections: undici's `request()` 79–94 µs of CPU per POST, its `dispatch()` with
 * a bare handler 73 µs, and this client (one write of prepared bytes, a response parser that
 * reads only what an attempt keeps) 35 µs. With three reports per message that difference
 * alone was a fifth of smsgw's CPU per message end to end. See ./http1/ for what it reads.
 */
import type { Logger } from 'pino';
import { boundedCache } from '../bounded-cache.js';
import { checkCallbackUrl } from './address-guard.js';
import { createExchange, type ExchangeAnswer } from './http1/exchange.js';
import { OriginPool, type Target } from './http1/pool.js';
import { type AttemptOutcome, classifyResponse, parseRetryAfter } from './retry-policy.js';

export interface WebhookAttemptResult {
  kind: AttemptOutcome;
  /** HTTP status, or null when there was no response. */
  status: number | null;
  durationMs: number;
  /** The first bytes of the response body as text, for the attempt log. */
  responseExcerpt: string;
  /** Why there was no response ('timeout', 'connection refused', ...). */
  error?: string;
  retryAfterMs?: number;
}

/** The port the webhook sender uses. */
export interface WebhookHttpClient {
  post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<WebhookAttemptResult>;
  close(): Promise<void>;
}

export interface WebhookHttpClientOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  maxConnectionsPerOrigin?: number;
  logger?: Logger;
}

export const EXCERPT_BYTES = 512;
/**
 * A body up to this size is read to its end so the connection can be used again; a longer one
 * is cut off (which costs the connection) so a receiver cannot make us download megabytes.
 */
export const READ_CAP_BYTES = 4096;
/** Enough to overlap slow receivers without one busy customer holding hundreds of sockets. */
const DEFAULT_CONNECTIONS_PER_ORIGIN = 8;
/**
 * Requests queued on one connection once all of an origin's connections are busy. Measured
 * with the side-by-side harness's receiver (a Node http server) on this 2-core machine: at
 * 3 reports per message the client's writes were the largest single cost of the engine thread
 * one request per write; pipelining lets a turn's requests to one origin share a write.
 */
const PIPELINE_DEPTH = 8;
/** How often deadlines and idle connections are looked at: the precision of a timeout. */
const SWEEP_MS = 25;
/** Parsed URLs kept: a message's reports all go to one URL. */
const URL_CACHE_SIZE = 1000;

interface ParsedUrl {
  readonly origin: string;
  readonly target: Target;
  /** The request line and Host header, written once per URL. */
  readonly head: string;
}

export function createWebhookHttpClient(opts: WebhookHttpClientOptions): WebhookHttpClient {
  const { timeoutMs, logger } = opts;
  const pools = new Map<string, OriginPool>();
  const urls = boundedCache<string, ParsedUrl | string>(URL_CACHE_SIZE);
  const debug = logger?.isLevelEnabled('debug') === true;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const sweep = () => {
    const now = performance.now();
    for (const [origin, pool] of pools) {
      pool.sweep(now);
      if (pool.empty) pools.delete(origin);
    }
    if (pools.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };

  /** The parsed URL, or why it cannot be used (its check runs before every attempt). */
  const parse = (url: string): ParsedUrl | string => {
    let parsed = urls.get(url);
    if (parsed !== undefined) return parsed;
    const checked = checkCallbackUrl(url);
    if (!checked.ok) parsed = `invalid URL: ${checked.reason}`;
    else {
      const u = checked.url;
      const https = u.protocol === 'https:';
      parsed = {
        origin: u.origin,
        target: {
          https,
          hostname: u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname,
          port: u.port === '' ? (https ? 443 : 80) : Number(u.port),
        },
        head: `POST ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${u.host}\r\nuser-agent: smsgw\r\n`,
      };
    }
    urls.set(url, parsed);
    return parsed;
  };

  function post(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
  ): Promise<WebhookAttemptResult> {
    const started = performance.now();
    const parsed = parse(url);
    const elapsed = () => Math.round(performance.now() - started);
    const result = (done: WebhookAttemptResult): WebhookAttemptResult => {
      // Only the origin is logged: paths and query strings of callback URLs often carry tokens.
      if (debug)
        logger?.debug(
          { origin: typeof parsed === 'string' ? undefined : parsed.origin, ...done },
          'webhook attempt',
        );
      return done;
    };
    if (typeof parsed === 'string') {
      return Promise.resolve(
        result({ kind: 'give_up', status: null, durationMs: elapsed(), responseExcerpt: '', error: parsed }),
      );
    }
    if (closed) {
      return Promise.resolve(
        result({
          kind: 'retry',
          status: null,
          durationMs: elapsed(),
          responseExcerpt: '',
          error: 'client closed',
        }),
      );
    }
    let request = parsed.head;
    for (const name in headers) request += `${name}: ${headers[name]}\r\n`;
    request += `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    return new Promise((resolve) => {
      const exchange = createExchange(request, started + timeoutMs, (answer) =>
        resolve(result(toResult(answer, elapsed(), logger, parsed.origin))),
      );
      let pool = pools.get(parsed.origin);
      if (!pool) {
        pool = new OriginPool(parsed.origin, parsed.target, {
          maxConnections: opts.maxConnectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN,
          pipelineDepth: PIPELINE_DEPTH,
          readCap: READ_CAP_BYTES,
          ...(logger && { logger }),
          allowPrivate: opts.allowPrivate,
          connectTimeoutMs: timeoutMs,
        });
        pools.set(parsed.origin, pool);
      }
      timer ??= setInterval(sweep, SWEEP_MS).unref();
      pool.dispatch(exchange);
    });
  }

  return {
    post,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = null;
      for (const pool of pools.values()) pool.close();
      pools.clear();
    },
  };
}

function toResult(
  answer: ExchangeAnswer,
  durationMs: number,
  logger: Logger | undefined,
  origin: string,
): WebhookAttemptResult {
  if (answer.kind === 'response') {
    const kind = classifyResponse(answer.status);
    const retryAfterMs = kind === 'retry' ? parseRetryAfter(answer.retryAfter, Date.now()) : undefined;
    const responseExcerpt = excerptOf(answer.body);
    return retryAfterMs === undefined
      ? { kind, status: answer.status, durationMs, responseExcerpt }
      : { kind, status: answer.status, durationMs, responseExcerpt, retryAfterMs };
  }
  if (answer.privateRefused) {
    logger?.warn({ origin }, 'webhook refused: callback resolves to a private address');
    // The same URL will keep resolving privately; retrying only delays the give-up.
    return {
      kind: 'give_up',
      status: null,
      durationMs,
      responseExcerpt: '',
      error: 'private address refused',
    };
  }
  return { kind: classifyResponse(null), status: null, durationMs, responseExcerpt: '', error: answer.error };
}

function excerptOf(body: Buffer): string {
  return body.toString('utf8', 0, wholeCharacters(body, Math.min(body.length, EXCERPT_BYTES)));
}

/**
 * Where the first `end` bytes of UTF-8 stop short of a character cut in half at the boundary, so
 * the excerpt never ends in a replacement character. (A TextDecoder in stream mode does the same,
 * but building one per answer was a microsecond and a half of every attempt.)
 */
function wholeCharacters(bytes: Buffer, end: number): number {
  let start = end - 1;
  // Back over continuation bytes (10xxxxxx) to the lead byte of the last character.
  while (start > 0 && start > end - 4 && (bytes[start]! & 0xc0) === 0x80) start -= 1;
  if (start < 0) return end;
  const lead = bytes[start]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + length > end ? start : end;
}
