/**
 * The HTTP edge of webhook delivery: one POST, one result. It never throws, because the sender
 * stores every attempt (style.md §7) and a thrown error would be an attempt with no row.
 */
import type { Logger } from 'pino';
import { Agent, type Dispatcher } from 'undici';
import { PRIVATE_ADDRESS_CODE, checkCallbackUrl, createGuardedConnector } from './address-guard.js';
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
  post(url: string, headers: Record<string, string>, body: string): Promise<WebhookAttemptResult>;
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
 * A body up to this size is read to its end so the connection can go back to the pool; a
 * longer one is cut off (which costs the connection) so a receiver cannot make us download
 * megabytes per attempt. undici 7 then dials one spare idle connection to that origin
 * (nodejs/undici#5845); the next post reuses it or the receiver's idle timeout closes it.
 */
export const READ_CAP_BYTES = 4096;
/** Enough to overlap slow receivers without one busy customer holding hundreds of sockets. */
const DEFAULT_CONNECTIONS_PER_ORIGIN = 8;

/** Connection-level error codes and how they read in the attempt log. All of them retry. */
const NO_RESPONSE_ERRORS: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
};

export function createWebhookHttpClient(opts: WebhookHttpClientOptions): WebhookHttpClient {
  const { timeoutMs, logger } = opts;
  const agent = new Agent({
    connect: createGuardedConnector(opts.allowPrivate, { timeout: timeoutMs }),
    connections: opts.maxConnectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const debug = logger?.isLevelEnabled('debug') === true;

  async function post(
    url: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<WebhookAttemptResult> {
    const started = performance.now();
    const result = (r: Omit<WebhookAttemptResult, 'durationMs'>): WebhookAttemptResult => {
      const done = { ...r, durationMs: Math.round(performance.now() - started) };
      if (debug) logger?.debug({ origin: safeOrigin(url), ...done }, 'webhook attempt');
      return done;
    };

    const checked = checkCallbackUrl(url);
    if (!checked.ok) {
      return result({
        kind: 'give_up',
        status: null,
        responseExcerpt: '',
        error: `invalid URL: ${checked.reason}`,
      });
    }

    const answer = await exchange(agent, checked.url, headers, body, timeoutMs);
    if (answer.kind === 'response') {
      const kind = classifyResponse(answer.status);
      const retryAfterMs = kind === 'retry' ? parseRetryAfter(answer.retryAfter, Date.now()) : undefined;
      return result({
        kind,
        status: answer.status,
        responseExcerpt: answer.excerpt,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    if (errorCode(answer.error) === PRIVATE_ADDRESS_CODE) {
      logger?.warn({ origin: checked.url.origin }, 'webhook refused: callback resolves to a private address');
      // The same URL will keep resolving privately; retrying only delays the give-up.
      return result({ kind: 'give_up', status: null, responseExcerpt: '', error: 'private address refused' });
    }
    const error = answer.timedOut ? 'timeout' : describeNoResponse(answer.error);
    return result({ kind: classifyResponse(null), status: null, responseExcerpt: '', error });
  }

  return { post, close: () => agent.close() };
}

type Exchange =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly retryAfter?: string;
      readonly excerpt: string;
    }
  | { readonly kind: 'no_response'; readonly error: unknown; readonly timedOut: boolean };

/**
 * One POST through undici's dispatch API, read into an excerpt. Not `request()`: its body
 * stream, async iterator and AbortSignal cost about a third of the client's CPU per attempt in
 * the webhooks bench, and an attempt only ever needs the status, one header and 4 KiB.
 *
 * Once the status line has arrived, the answer stands: a timeout or an error while reading
 * the body only ends the excerpt, because the excerpt is only for people reading the log.
 */
function exchange(
  agent: Dispatcher,
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Exchange> {
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | null = null;
    let status: number | null = null;
    let retryAfter: string | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (answer: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(answer);
    };
    const answered = () =>
      settle({
        kind: 'response',
        status: status!,
        excerpt: excerptOf(chunks),
        ...(retryAfter === undefined ? {} : { retryAfter }),
      });
    // headersTimeout/bodyTimeout each restart per phase; this bounds the attempt as a whole.
    const deadline = setTimeout(() => {
      if (status !== null) answered();
      else settle({ kind: 'no_response', error: null, timedOut: true });
      controller?.abort(new Error('webhook attempt timed out'));
    }, timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        // The deadline passed while connecting: give up the request before it is sent.
        if (settled) c.abort(new Error('webhook attempt timed out'));
      },
      onResponseStart(_c, statusCode, responseHeaders) {
        if (statusCode < 200) return; // informational; the real answer follows
        status = statusCode;
        retryAfter = firstHeader(responseHeaders['retry-after']);
      },
      onResponseData(c, chunk) {
        if (settled) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size > READ_CAP_BYTES) {
          answered();
          c.abort(new Error('webhook response longer than the read cap'));
        }
      },
      onResponseEnd() {
        // undici hands a finished connection back to its pool one event-loop turn later, with
        // a setImmediate queued just after this callback returns (client-h1 onMessageComplete).
        // Answering after that turn lets the caller's next post reuse this connection instead
        // of dialling a second one; nextTick puts our turn behind undici's.
        process.nextTick(() => setImmediate(answered));
      },
      onResponseError(_c, error) {
        if (status !== null) answered();
        else settle({ kind: 'no_response', error, timedOut: false });
      },
    };
    try {
      agent.dispatch(
        { origin: url.origin, path: url.pathname + url.search, method: 'POST', headers, body },
        handler,
      );
    } catch (error) {
      settle({ kind: 'no_response', error, timedOut: false });
    }
  });
}

function excerptOf(chunks: readonly Buffer[]): string {
  // An empty body needs no decoder: one per attempt was about 1% of the webhooks bench's CPU.
  if (chunks.length === 0) return '';
  const head = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).subarray(0, EXCERPT_BYTES);
  // stream: true holds back a character cut in half at the 512-byte boundary instead of
  // emitting a replacement character for it.
  return new TextDecoder().decode(head, { stream: true });
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function errorCode(err: unknown): string | undefined {
  // undici and net sometimes wrap the socket error; the code we need may be on a cause.
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function describeNoResponse(err: unknown): string {
  const code = errorCode(err);
  if (code !== undefined) return NO_RESPONSE_ERRORS[code] ?? `connection failed (${code})`;
  const message = err instanceof Error ? err.message : String(err);
  return `connection failed: ${message.slice(0, 120)}`;
}

/** Only the origin is logged: paths and query strings of callback URLs often carry tokens. */
function safeOrigin(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).origin : undefined;
}
