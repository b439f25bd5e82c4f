import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/app/accounts.js';
import { loadConfig } from '../../src/config/config.js';
import { buildApp, type App } from '../../src/http/app.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';

const ADMIN = 'admin-token-for-logs';

/** decisions §12: x-request-id on every response, one log line per request, nothing secret in it. */
describe('request ids and the request log', () => {
  let db: TestDatabase;
  let app: App;
  let key: string;
  let accountId: number;
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          raw.push(line);
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
        done();
      },
    });
    const store = createStore(db.conn);
    app = await buildApp({
      config: loadConfig({ SMSGW_ADMIN_TOKEN: ADMIN }),
      store,
      logger: pino({ level: 'info' }, sink),
      now: () => Date.now(),
    });
    const created = await createAccount(store, { name: 'logged', anySender: true }, Date.now());
    key = created.key.apiKey;
    accountId = created.account.id;
  });
  afterAll(async () => {
    await app.close();
    await db.drop();
  });
  const requestLines = () => lines.filter((l) => l.msg === 'request');

  it('echoes a well-formed x-request-id and makes one up otherwise', async () => {
    const own = 'client-42.retry_1';
    const echoed = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': own } });
    expect(echoed.headers['x-request-id']).toBe(own);
    const long = 'a'.repeat(128);
    expect(
      (await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': long } })).headers[
        'x-request-id'
      ],
    ).toBe(long);
    for (const bad of ['a'.repeat(129), 'has space', 'semi;colon', 'ümlaut', '']) {
      const r = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': bad } });
      expect(r.headers['x-request-id'], JSON.stringify(bad)).toMatch(/^[0-9a-f-]{36}$/);
    }
    const a = await app.inject({ method: 'GET', url: '/healthz' });
    const b = await app.inject({ method: 'GET', url: '/healthz' });
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it('puts the id on errors, unknown paths, OPTIONS and 405 too', async () => {
    const responses = await Promise.all([
      app.inject({ method: 'GET', url: '/v1/sms/messages' }),
      app.inject({ method: 'GET', url: '/nowhere' }),
      app.inject({ method: 'GET', url: '/v1/sms/message/%ZZ' }),
      app.inject({ method: 'OPTIONS', url: '/v1/sms/message' }),
      app.inject({ method: 'PUT', url: '/v1/sms/message' }),
      app.inject({
        method: 'POST',
        url: '/v1/sms/message',
        headers: { authorization: `Bearer ${key}` },
        payload: '{oops',
      }),
    ]);
    expect(responses.map((r) => r.statusCode)).toEqual([401, 404, 404, 200, 405, 400]);
    for (const r of responses) expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes one line per request: id, method, route, status, duration, account', async () => {
    lines.length = 0;
    const id = 'trace-me-1';
    const r = await app.inject({
      method: 'GET',
      url: '/v1/sms/message/77?x=1',
      headers: { authorization: `Bearer ${key}`, 'x-request-id': id },
    });
    expect(r.statusCode).toBe(404);
    const mine = requestLines().filter((l) => l.reqId === id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      level: 30,
      reqId: id,
      method: 'GET',
      route: '/v1/sms/message/:messageID',
      status: 404,
      durationMs: expect.any(Number),
      accountID: accountId,
    });
    const admin = await app.inject({
      method: 'GET',
      url: '/admin/v1/accounts',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const line = requestLines().find((l) => l.reqId === admin.headers['x-request-id']);
    expect(line).toMatchObject({ route: '/admin/v1/accounts', status: 200, accountID: null });
  });

  it('never logs a key, a body or a phone number at info', async () => {
    lines.length = 0;
    raw.length = 0;
    const secretBody = 'The code is 918273';
    await app.inject({
      method: 'POST',
      url: '/v1/sms/message',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ to: ['+61491579876'], from: '+61491570111', body: secretBody }),
    });
    await app.inject({
      method: 'GET',
      url: '/v1/sms/messages?from=%2B61491570111&to=61491579876',
      headers: { authorization: `Bearer ${key}` },
    });
    await app.inject({
      method: 'POST',
      url: `/admin/v1/accounts/${accountId}/numbers`,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ msisdn: '+61491575555' }),
    });
    await app.inject({
      method: 'DELETE',
      url: `/admin/v1/accounts/${accountId}/numbers/%2B61491575555`,
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(requestLines()).toHaveLength(4);
    const text = raw.join('\n');
    for (const secret of [key, ADMIN, secretBody, '61491579876', '61491570111', '61491575555', '918273']) {
      expect(text, secret).not.toContain(secret);
    }
  });
});
