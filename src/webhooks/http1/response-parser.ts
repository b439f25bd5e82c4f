/**
 * Reads one HTTP/1.1 response off a keep-alive connection, incrementally: the status, the few
 * headers a webhook attempt needs, and up to `readCap` bytes of the body. Bodies may come with
 * Content-Length, chunked, or (HTTP/1.0 style) until the connection closes.
 */

/** Longest response head accepted; a receiver that sends more is broken or hostile. */
const MAX_HEAD_BYTES = 16 * 1024;

export interface ParsedHead {
  readonly status: number;
  readonly retryAfter: string | undefined;
  /** The connection may carry another request after this response. */
  readonly keepAlive: boolean;
}

export type ParseEvent =
  /** Nothing complete yet; feed more. */
  | { readonly kind: 'more' }
  /** The whole response has been read; `rest` is what followed it (the next pipelined answer). */
  | { readonly kind: 'done'; readonly head: ParsedHead; readonly body: Buffer; readonly rest: Buffer }
  /** The body went past the cap: stop reading and drop the connection. */
  | { readonly kind: 'capped'; readonly head: ParsedHead; readonly body: Buffer }
  | { readonly kind: 'error'; readonly reason: string };

type BodyMode =
  | { kind: 'none' }
  | { kind: 'length'; remaining: number }
  | { kind: 'chunked'; step: 'size' | 'data' | 'data-end' | 'trailers'; remaining: number }
  | { kind: 'close' };

export class ResponseParser {
  private pending: Buffer | null = null;
  private head: ParsedHead | null = null;
  private mode: BodyMode = { kind: 'none' };
  private readonly body: Buffer[] = [];
  private bodyBytes = 0;

  constructor(private readonly readCap: number) {}

  /** The status line has been read (a final, non-1xx one). */
  get status(): number | null {
    return this.head?.status ?? null;
  }

  /** What has been read of the body so far (for an answer cut short by a timeout). */
  bodySoFar(): Buffer {
    return this.body.length === 1 ? this.body[0]! : Buffer.concat(this.body);
  }

  feed(chunk: Buffer): ParseEvent {
    const data = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = null;
    let offset = 0;
    for (;;) {
      if (this.head === null) {
        const end = data.indexOf('\r\n\r\n', offset, 'latin1');
        if (end < 0) {
          if (data.length - offset > MAX_HEAD_BYTES)
            return { kind: 'error', reason: 'response head too long' };
          this.pending = data.subarray(offset);
          return { kind: 'more' };
        }
        const parsed = parseHead(data.toString('latin1', offset, end));
        offset = end + 4;
        if (parsed === null) return { kind: 'error', reason: 'malformed response' };
        // 1xx (100 Continue, 103 Early Hints) precede the real answer.
        if (parsed.head.status < 200) continue;
        this.head = parsed.head;
        this.mode = parsed.mode;
      }
      return this.readBody(data, offset);
    }
  }

  /** The peer closed the connection: complete for a body that runs until close. */
  end(): ParseEvent {
    if (this.head !== null && this.mode.kind === 'close') {
      return { kind: 'done', head: this.head, body: this.bodySoFar(), rest: Buffer.alloc(0) };
    }
    return { kind: 'error', reason: 'connection closed' };
  }

  private take(data: Buffer, from: number, to: number): boolean {
    if (to <= from) return true;
    const room = this.readCap - this.bodyBytes;
    const slice = data.subarray(from, Math.min(to, from + room));
    if (slice.length > 0) {
      this.body.push(slice);
      this.bodyBytes += slice.length;
    }
    return to - from <= room;
  }

  private readBody(data: Buffer, offset: number): ParseEvent {
    const head = this.head!;
    const mode = this.mode;
    switch (mode.kind) {
      case 'none':
        return { kind: 'done', head, body: Buffer.alloc(0), rest: data.subarray(offset) };
      case 'close':
        if (!this.take(data, offset, data.length)) return { kind: 'capped', head, body: this.bodySoFar() };
        return { kind: 'more' };
      case 'length': {
        const available = Math.min(mode.remaining, data.length - offset);
        if (!this.take(data, offset, offset + available))
          return { kind: 'capped', head, body: this.bodySoFar() };
        mode.remaining -= available;
        offset += available;
        if (mode.remaining > 0) return { kind: 'more' };
        return { kind: 'done', head, body: this.bodySoFar(), rest: data.subarray(offset) };
      }
      case 'chunked':
        return this.readChunked(data, offset, mode);
    }
  }

  private readChunked(
    data: Buffer,
    offset: number,
    mode: Extract<BodyMode, { kind: 'chunked' }>,
  ): ParseEvent {
    const head = this.head!;
    for (;;) {
      if (mode.step === 'data') {
        const available = Math.min(mode.remaining, data.length - offset);
        if (!this.take(data, offset, offset + available))
          return { kind: 'capped', head, body: this.bodySoFar() };
        mode.remaining -= available;
        offset += available;
        if (mode.remaining > 0) return { kind: 'more' };
        mode.step = 'data-end';
        continue;
      }
      // size line, the CRLF after a chunk's data, or a trailer line: all end in CRLF.
      const eol = data.indexOf('\r\n', offset, 'latin1');
      if (eol < 0) {
        if (data.length - offset > MAX_HEAD_BYTES) return { kind: 'error', reason: 'chunk line too long' };
        this.pending = data.subarray(offset);
        return { kind: 'more' };
      }
      const line = data.toString('latin1', offset, eol);
      offset = eol + 2;
      if (mode.step === 'data-end') {
        if (line !== '') return { kind: 'error', reason: 'malformed chunk' };
        mode.step = 'size';
      } else if (mode.step === 'size') {
        const size = Number.parseInt(line.split(';', 1)[0]!.trim(), 16);
        if (!Number.isFinite(size) || size < 0 || !/^[0-9a-fA-F]+/.test(line))
          return { kind: 'error', reason: 'malformed chunk size' };
        if (size === 0) mode.step = 'trailers';
        else {
          mode.step = 'data';
          mode.remaining = size;
        }
      } else if (line === '') {
        return { kind: 'done', head, body: this.bodySoFar(), rest: data.subarray(offset) };
      }
    }
  }
}

/** The header names an attempt reads, as they compare: lower case. */
const CONTENT_LENGTH = 'content-length';
const TRANSFER_ENCODING = 'transfer-encoding';
const CONNECTION = 'connection';
const RETRY_AFTER = 'retry-after';

/** Space or tab, as a header line's optional whitespace (RFC 9110 §5.6.3). */
function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * Whether text[from, to) is `name` (lower case) in any case. ASCII folding is enough: none of
 * the names has a letter that another character lower-cases to.
 */
function nameIs(text: string, from: number, to: number, name: string): boolean {
  if (to - from !== name.length) return false;
  for (let k = 0; k < name.length; k++) {
    const c = text.charCodeAt(from + k);
    const lower = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
    if (lower !== name.charCodeAt(k)) return false;
  }
  return true;
}

/** The value of the header line whose colon is at `colon` and which ends at `end`, trimmed. */
function valueOf(text: string, colon: number, end: number): string {
  return text.slice(colon + 1, end).trim();
}

/**
 * The status and the four headers an attempt needs. Read in place, a line at a time: one
 * header name compared without slicing and lower-casing each (this runs for every webhook).
 */
function parseHead(text: string): { head: ParsedHead; mode: BodyMode } | null {
  const firstEnd = text.indexOf('\r\n');
  const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(firstEnd < 0 ? text : text.slice(0, firstEnd));
  if (statusLine === null) return null;
  const http10 = statusLine[1] === '0';
  const status = Number(statusLine[2]);
  let contentLength: number | null = null;
  let chunked = false;
  let connection = '';
  let retryAfter: string | undefined;
  // The head ends before its blank line, so every line after the status line is a header.
  let start = firstEnd < 0 ? -1 : firstEnd + 2;
  while (start >= 0) {
    const eol = text.indexOf('\r\n', start);
    const end = eol < 0 ? text.length : eol;
    const colon = text.indexOf(':', start);
    if (colon <= start || colon >= end) return null;
    let nameStart = start;
    let nameEnd = colon;
    while (nameStart < nameEnd && isOws(text.charCodeAt(nameStart))) nameStart++;
    while (nameEnd > nameStart && isOws(text.charCodeAt(nameEnd - 1))) nameEnd--;
    if (nameIs(text, nameStart, nameEnd, CONTENT_LENGTH)) {
      const given = valueOf(text, colon, end);
      if (!/^\d+$/.test(given)) return null;
      const length = Number(given);
      // Two different lengths make the framing ambiguous (a smuggling vector): refuse.
      if (contentLength !== null && contentLength !== length) return null;
      contentLength = length;
    } else if (nameIs(text, nameStart, nameEnd, TRANSFER_ENCODING)) {
      chunked = valueOf(text, colon, end).toLowerCase().split(',').at(-1)!.trim() === 'chunked';
    } else if (nameIs(text, nameStart, nameEnd, CONNECTION)) {
      connection = valueOf(text, colon, end).toLowerCase();
    } else if (retryAfter === undefined && nameIs(text, nameStart, nameEnd, RETRY_AFTER)) {
      retryAfter = valueOf(text, colon, end);
    }
    start = eol < 0 ? -1 : eol + 2;
  }
  const closes = connection.includes('close') || (http10 && !connection.includes('keep-alive'));
  let mode: BodyMode;
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) mode = { kind: 'none' };
  else if (chunked) mode = { kind: 'chunked', step: 'size', remaining: 0 };
  else if (contentLength !== null)
    mode = contentLength === 0 ? { kind: 'none' } : { kind: 'length', remaining: contentLength };
  else mode = { kind: 'close' };
  return { head: { status, retryAfter, keepAlive: !closes && mode.kind !== 'close' }, mode };
}
