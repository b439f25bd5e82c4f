import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildApp } from '../../src/http/app.js';
import type { Store } from '../../src/store/port.js';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';
import { checkContract } from '../helpers/contract.js';
import { ENGINES } from '../helpers/engines.js';

/** Every path of the API with the methods it supports (decisions §3). */
const PATHS: [string, string[]][] = [
  ['/v1/sms/message', ['POST', 'OPTIONS']],
  ['/v1/sms/messages', ['GET', 'OPTIONS']],
  ['/v1/sms/message/1', ['GET', 'PATCH', 'DELETE', 'OPTIONS']],
  ['/v1/sms/message/1/meta', ['GET', 'OPTIONS']],
  ['/v1/openapi.json', ['GET', 'OPTIONS']],
  ['/admin/v1/accounts', ['GET', 'POST', 'OPTIONS']],
  ['/admin/v1/accounts/1', ['GET', 'PATCH', 'OPTIONS']],
  ['/admin/v1/accounts/1/keys', ['POST', 'OPTIONS']],
  ['/admin/v1/accounts/1/keys/1', ['DELETE', 'OPTIONS']],
  ['/admin/v1/accounts/1/senders', ['POST', 'OPTIONS']],
  ['/admin/v1/accounts/1/senders/Acme', ['DELETE', 'OPTIONS']],
  ['/admin/v1/accounts/1/numbers', ['POST', 'OPTIONS']],
  ['/v1/account', ['GET', 'OPTIONS']],
  ['/v1/sms/recipients', ['GET', 'OPTIONS']],
  ['/v1/webhooks', ['GET', 'OPTIONS']],
  ['/v1/webhooks/1/replay', ['POST', 'OPTIONS']],
  ['/admin/v1/stats', ['GET', 'OPTIONS']],
  ['/healthz', ['GET', 'OPTIONS']],
  ['/readyz', ['GET', 'OPTIONS']],
  ['/metrics', ['GET', 'OPTIONS']],
];
const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

describe.each(ENGINES)('protocol edges on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());

  it.each(PATHS)('OPTIONS %s: 200, Allow header and JSON array, no key needed', async (path, methods) => {
    const r = await call(t, 'OPTIONS', path, undefined, null);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(methods);
    expect(String(r.headers.allow).split(', ')).toEqual(methods);
  });

  it.each(PATHS)('other methods on %s: 405 with Allow header and body', async (path, methods) => {
    for (const method of ALL_METHODS.filter((m) => !methods.includes(m))) {
      const r = await call(t, method, path);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(String(r.headers.allow).split(', ')).toEqual(methods);
      if (method !== 'HEAD') {
        expect(r.body).toEqual({ status_code: 405, status_msg: 'Method Not Allowed', Allow: methods });
      }
    }
  });

  it('404 Not-found body for unknown paths', async () => {
    for (const path of ['/v1/nope', '/v1/sms', '/v1/sms/message/1/meta/extra', '/elsewhere']) {
      const r = await call(t, 'GET', path);
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual({ status_code: 404, status_msg: 'Not Found', info: expect.any(String) });
    }
  });

  it('404 Not-found body for a path with malformed percent-encoding', async () => {
    for (const [method, path] of [
      ['GET', '/v1/sms/message/%ZZ'],
      ['PATCH', '/v1/sms/message/%ZZ'],
      ['GET', '/v1/sms/inbound/%E0%A4%A'],
    ] as const) {
      const r = await call(t, method, path, method === 'PATCH' ? { paused: true } : undefined);
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual({ status_code: 404, status_msg: 'Not Found', info: expect.any(String) });
    }
  });

  it('a request line too long for the HTTP parser gets 431 in the error body', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(`GET /v1/sms/messages?from=${'A'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    const [head, body] = response.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(body!)).toEqual({ status_code: 431, status_msg: 'Request Header Fields Too Large' });
  });

  it('serves the OpenAPI document with every public operation and the admin API', async () => {
    const r = await call(t, 'GET', '/v1/openapi.json', undefined, null);
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\./);
    const operations = Object.values(r.body.paths as Record<string, Record<string, { operationId?: string }>>)
      .flatMap((p) => Object.values(p).map((o) => o.operationId))
      .filter(Boolean);
    expect(operations).toEqual(
      expect.arrayContaining(['sendSms', 'indexOutboundSms', 'getOutboundSms', 'getOutboundSmsOptions']),
    );
    expect(Object.keys(r.body.paths)).toEqual(
      expect.arrayContaining(['/admin/v1/accounts', '/v1/sms/message/{messageID}']),
    );
    const send = r.body.paths['/v1/sms/message'].post;
    expect(send.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/SendSmsRequest',
    });
    expect(Object.keys(r.body.components.schemas.SendSmsRequest.properties)).toEqual(
      expect.arrayContaining([
        'to',
        'from',
        'body',
        'send_at',
        'expires_at',
        'ttl',
        'num_parts_max',
        'ref',
        'callbackURL',
        'delivery_report',
        'paused',
      ]),
    );
    expect(Object.keys(send.responses)).toEqual(
      expect.arrayContaining(['200', '201', '400', '401', '403', '404', '405', '413', '429', '500']),
    );
  });

  it('serves a docs page', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toContain('text/html');
  });
});

describe('unexpected failures', () => {
  it('answer 500 with a bare body: no stack, SQL or message', async () => {
    const failing = new Error('SQLITE_CORRUPT: select * from api_keys where key_hash = ? /secret/path.ts:12');
    const store = {
      accounts: { findByKeyHash: async () => Promise.reject(failing) },
      messages: {},
      close: async () => undefined,
    } as unknown as Store;
    const { loadConfig } = await import('../../src/config/config.js');
    const app = await buildApp({
      config: loadConfig({ SMSGW_ADMIN_TOKEN: ADMIN_TOKEN }),
      store,
      logger: pino({ level: 'silent' }),
      now: () => Date.now(),
    });
    checkContract(app);
    const r = await app.inject({
      method: 'GET',
      url: '/v1/sms/messages',
      headers: { authorization: 'Bearer x' },
    });
    expect(r.statusCode).toBe(500);
    expect(JSON.parse(r.body)).toEqual({ status_code: 500, status_msg: 'Internal Server Error' });
    await app.close();
  });
});
