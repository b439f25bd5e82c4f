import { describe, expect, it } from 'vitest';
import { ResponseParser } from '../../src/webhooks/http1/response-parser.js';

const parse = (response: string) => new ResponseParser(4096).feed(Buffer.from(response, 'latin1'));

describe('webhook response heads', () => {
  it('reads the headers an attempt needs in any case, around optional whitespace', () => {
    const event = parse(
      'HTTP/1.1 503 Service Unavailable\r\nCONTENT-length :  5\r\nRetry-After:\t120 \r\nX-Other: a:b\r\n\r\nbusy!',
    );
    expect(event).toMatchObject({
      kind: 'done',
      head: { status: 503, retryAfter: '120', keepAlive: true },
    });
    expect(event.kind === 'done' && event.body.toString()).toBe('busy!');
  });

  it('keeps the first Retry-After and reads the last transfer coding', () => {
    const event = parse(
      'HTTP/1.1 429 Too Many\r\nretry-after: 5\r\nRetry-After: 9\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
    );
    expect(event).toMatchObject({ kind: 'done', head: { status: 429, retryAfter: '5' } });
    expect(event.kind === 'done' && event.body.toString()).toBe('ok');
  });

  it('follows Connection: close and HTTP/1.0 without keep-alive', () => {
    expect(parse('HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n')).toMatchObject({
      head: { keepAlive: false },
    });
    expect(parse('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n')).toMatchObject({
      head: { keepAlive: false },
    });
    expect(parse('HTTP/1.0 200 OK\r\nconnection: keep-alive\r\nContent-Length: 0\r\n\r\n')).toMatchObject({
      head: { keepAlive: true },
    });
  });

  it('reads a head with no headers at all as a body that runs to the close', () => {
    expect(parse('HTTP/1.1 200 OK\r\n\r\nhello')).toMatchObject({ kind: 'more' });
  });

  it('refuses heads it cannot frame: a header without a name or colon, two lengths, a bad length', () => {
    for (const head of [
      'HTTP/1.1 200 OK\r\n: empty-name\r\n\r\n',
      'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\ncontent-length: 2\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n',
      'HTTP/2 200\r\n\r\n',
    ]) {
      expect(parse(head), head).toMatchObject({ kind: 'error' });
    }
  });

  it('reads the same Content-Length given twice as one', () => {
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok')).toMatchObject({
      kind: 'done',
      head: { status: 200 },
    });
  });
});
