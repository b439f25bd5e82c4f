import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';

const TO = ['+61491570156'];

describe.each(ENGINES)('POST /v1/sms/message on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine, { SMSGW_MAX_RECIPIENTS: '50' });
  });
  afterAll(async () => t.close());

  const send = (body: unknown, key?: string | null) => call(t, 'POST', '/v1/sms/message', body, key);

  describe('authentication', () => {
    it('refuses a missing, unknown or malformed key with the Unauthorized body', async () => {
      for (const key of [null, 'sk_nope', '']) {
        const r = await send({ to: TO, from: 'Acme', body: 'hi' }, key);
        expect(r.status).toBe(401);
        expect(r.body).toEqual({ status_code: 401, status_msg: 'Unauthorized' });
      }
    });

    it('answers 401 before looking at the body or the query', async () => {
      for (const key of [null, 'sk_nope']) {
        const headers = key === null ? {} : { authorization: `Bearer ${key}` };
        const requests = [
          { method: 'POST', url: '/v1/sms/message', payload: {} },
          { method: 'POST', url: '/v1/sms/message', payload: { to: [], body: '' } },
          { method: 'POST', url: '/v1/sms/message', payload: '{bad' },
          { method: 'POST', url: '/v1/sms/message' },
          { method: 'PATCH', url: '/v1/sms/message/1', payload: {} },
          { method: 'GET', url: '/v1/sms/messages?limit=nope' },
          { method: 'GET', url: '/v1/sms/inbound?sort=nope' },
        ] as const;
        for (const { method, url, ...rest } of requests) {
          const payload = 'payload' in rest ? rest.payload : undefined;
          const r = await t.app.inject({
            method,
            url,
            headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
            ...(payload === undefined ? {} : { payload }),
          });
          expect({ method, url, status: r.statusCode, body: r.json() }).toEqual({
            method,
            url,
            status: 401,
            body: { status_code: 401, status_msg: 'Unauthorized' },
          });
        }
      }
    });

    it('accepts the bare key as well as Bearer', async () => {
      const r = await t.app.inject({
        method: 'POST',
        url: '/v1/sms/message',
        headers: { authorization: t.key, 'content-type': 'application/json' },
        payload: { to: TO, from: 'Acme', body: 'hi' },
      });
      expect(r.statusCode).toBe(201);
    });

    it('refuses a revoked key', async () => {
      const { account } = await t.newAccount();
      const { issueKey } = await import('../../src/app/accounts.js');
      const key = await issueKey(t.store, account.id, t.clock.now);
      expect((await send({ to: TO, from: 'Acme', body: 'hi' }, key.apiKey)).status).toBe(201);
      await t.store.accounts.revokeKey(account.id, key.keyId, t.clock.now);
      expect((await send({ to: TO, from: 'Acme', body: 'hi' }, key.apiKey)).status).toBe(401);
    });
  });

  describe('accepted messages', () => {
    it('answers 201 with messageID, num_parts and num_recipients; recipients due now are submitted', async () => {
      const r = await send({ to: ['61491570156', '+61491570157'], from: '+61491570100', body: 'Hello' });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({ messageID: expect.any(Number), num_parts: 1, num_recipients: 2 });
      const read = await call(t, 'GET', `/v1/sms/message/${r.body.messageID}/status`);
      expect(read.body.to).toEqual({ '+61491570156': 'submitted', '+61491570157': 'submitted' });
      expect(read.body.status.submitted).toBe(2);
    });

    it('keeps recipients of a scheduled or paused message pending (decisions §7)', async () => {
      const scheduled = await send({
        to: ['+61491570156'],
        from: 'Acme',
        body: 'later',
        send_at: '2026-11-21T13:00:00Z',
      });
      const paused = await send({ to: ['+61491570156'], from: 'Acme', body: 'held', paused: true });
      for (const r of [scheduled, paused]) {
        const read = await call(t, 'GET', `/v1/sms/message/${r.body.messageID}/status`);
        expect(read.body.to).toEqual({ '+61491570156': 'pending' });
      }
    });

    it('sends duplicate recipients once, after normalisation', async () => {
      const r = await send({ to: ['+61491570156', '61491570156', ' 61491570156'], from: 'Acme', body: 'x' });
      expect(r.body.num_recipients).toBe(1);
      const read = await call(t, 'GET', `/v1/sms/message/${r.body.messageID}`);
      expect(read.body.to).toEqual(['+61491570156']);
    });

    it('counts GSM-7 and UCS-2 parts', async () => {
      const cases: [string, number][] = [
        ['a'.repeat(160), 1],
        ['a'.repeat(161), 2],
        ['€'.repeat(80), 1],
        ['€'.repeat(81), 2],
        ['é'.repeat(160), 1],
        ['ж'.repeat(70), 1],
        ['ж'.repeat(71), 2],
        ['😀'.repeat(35), 1],
        ['😀'.repeat(36), 2],
        // 134 UTF-16 units, but a pair is never split: 33 + 33 + 1 emoji.
        ['😀'.repeat(67), 3],
      ];
      for (const [body, parts] of cases) {
        const r = await send({ to: TO, from: 'Acme', body });
        expect(r.body.num_parts, body.slice(0, 5)).toBe(parts);
      }
    });

    it('ignores unknown fields', async () => {
      expect((await send({ to: TO, from: 'Acme', body: 'x', colour: 'blue' })).status).toBe(201);
    });

    it('stores ref, callbackURL, paused, send_at and expires_at as given', async () => {
      const r = await send({
        to: TO,
        from: 'Acme',
        body: 'x',
        ref: 'order-1',
        callbackURL: 'https://example.com/dlr',
        paused: true,
        send_at: '2026-12-01T10:00:00Z',
        ttl: '3600',
      });
      const read = await call(t, 'GET', `/v1/sms/message/${r.body.messageID}`);
      expect(read.body).toMatchObject({
        ref: 'order-1',
        callbackURL: 'https://example.com/dlr',
        paused: true,
        send_at: '2026-12-01T10:00:00.000Z',
        expires_at: '2026-12-01T11:00:00.000Z',
      });
    });

    it('reads the four date-time forms, the naive one in the account timezone', async () => {
      const { key } = await t.newAccount({ timezone: 'America/Sao_Paulo' });
      const forms: [unknown, string][] = [
        [1796119200, '2026-12-01T10:00:00.000Z'],
        ['1796119200', '2026-12-01T10:00:00.000Z'],
        ['2026-12-01 07:00:00', '2026-12-01T10:00:00.000Z'],
        // ISO 8601 with T and no zone is the same wall time (decisions §6).
        ['2026-12-01T07:00:00', '2026-12-01T10:00:00.000Z'],
        ['2026-12-01T07:00:00.5', '2026-12-01T10:00:00.500Z'],
        ['2026-12-01T10:00:00Z', '2026-12-01T10:00:00.000Z'],
        ['2026-12-01T07:00:00-0300', '2026-12-01T10:00:00.000Z'],
        ['2026-12-01T07:00:00.250-03:00', '2026-12-01T10:00:00.250Z'],
      ];
      for (const [sendAt, expected] of forms) {
        const r = await send({ to: TO, from: 'Acme', body: 'x', send_at: sendAt }, key);
        expect(r.status, String(sendAt)).toBe(201);
        const read = await call(t, 'GET', `/v1/sms/message/${r.body.messageID}`, undefined, key);
        expect(read.body.send_at, String(sendAt)).toBe(expected);
      }
    });

    it('takes dates before 1970 (decisions §6): a send_at in the past sends now', async () => {
      for (const [sendAt, expected] of [
        ['1969-07-20 20:17:40', '1969-07-20T20:17:40.000Z'],
        ['1969-07-20T20:17:40', '1969-07-20T20:17:40.000Z'],
        [-86_400, '1969-12-31T00:00:00.000Z'],
        ['-86400', '1969-12-31T00:00:00.000Z'],
      ] as const) {
        const r = await send({ to: TO, from: 'Acme', body: 'x', send_at: sendAt });
        expect(r.status, String(sendAt)).toBe(201);
        const read = await call(t, 'GET', `/v1/sms/message/${r.body.messageID}`);
        expect(read.body.send_at, String(sendAt)).toBe(expected);
      }
    });

    it('takes ttl as a JSON integer or a string of digits, 0 included (decisions §4)', async () => {
      const sendAt = '2026-12-01T10:00:00Z';
      for (const [ttl, expiresAt] of [
        [3600, '2026-12-01T11:00:00.000Z'],
        ['3600', '2026-12-01T11:00:00.000Z'],
        [' 60 ', '2026-12-01T10:01:00.000Z'],
        [0, '2026-12-01T10:00:00.000Z'],
        ['0', '2026-12-01T10:00:00.000Z'],
      ] as const) {
        const r = await send({ to: TO, from: 'Acme', body: 'x', send_at: sendAt, ttl });
        expect(r.status, JSON.stringify(ttl)).toBe(201);
        const read = await call(t, 'GET', `/v1/sms/message/${r.body.messageID}`);
        expect(read.body.expires_at, JSON.stringify(ttl)).toBe(expiresAt);
      }
    });

    it('defaults send_at to now and counts ttl from send_at', async () => {
      const r = await send({ to: TO, from: 'Acme', body: 'x', ttl: 60 });
      const read = await call(t, 'GET', `/v1/sms/message/${r.body.messageID}`);
      expect(read.body.send_at).toBe(new Date(t.clock.now).toISOString());
      expect(read.body.expires_at).toBe(new Date(t.clock.now + 60_000).toISOString());
    });
  });

  describe('refusals', () => {
    it('400 ARG_MISSING for each absent or null required argument, in order', async () => {
      for (const [body, arg] of [
        [{ from: 'Acme', body: 'x' }, 'to'],
        [{ to: TO, body: 'x' }, 'from'],
        [{ to: TO, from: 'Acme' }, 'body'],
        [{ to: null, from: 'Acme', body: 'x' }, 'to'],
        [{ to: TO, from: null, body: 'x' }, 'from'],
        [{ to: TO, from: 'Acme', body: null }, 'body'],
        [{}, 'to'],
      ] as const) {
        const r = await send(body);
        expect(r.status).toBe(400);
        expect(r.body).toEqual({
          status_code: 400,
          status_msg: 'Bad Request',
          error: expect.any(String),
          type: 'ARG_MISSING',
          arguement: arg,
        });
      }
    });

    it('400 JSON_INVALID for malformed JSON or a body that is not an object', async () => {
      for (const payload of ['{"to": [', '[1,2]', '"text"', '42', 'null', '']) {
        const r = await send(payload);
        expect(r.status, payload).toBe(400);
        expect(r.body, payload).toMatchObject({ status_code: 400, type: 'JSON_INVALID', arguement: null });
      }
    });

    it('400 JSON_INVALID for a body nested thousands of levels deep, in any field', async () => {
      const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
      for (const depth of [65, 3000, 100_000]) {
        for (const field of ['to', 'body', 'ref', 'send_at', 'ttl', 'colour']) {
          const payload = `{"to":["+61491570156"],"from":"Acme","body":"x","${field}":${nested(depth)}}`;
          const r = await send(payload);
          expect(r.status, `${field} at depth ${depth}`).toBe(400);
          expect(r.body).toEqual({
            status_code: 400,
            status_msg: 'Bad Request',
            error: 'The request body nests deeper than 64 levels',
            type: 'JSON_INVALID',
            arguement: null,
          });
        }
        const objects = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
        expect((await send(objects)).body).toMatchObject({ status_code: 400, type: 'JSON_INVALID' });
      }
      // Up to the limit the body is read as usual: an unknown field is ignored, a bad one echoed.
      const deepest = nested(63);
      expect(
        (await send(`{"to":["+61491570156"],"from":"Acme","body":"x","colour":${deepest}}`)).status,
      ).toBe(201);
      const echoed = await send(`{"to":["+61491570156"],"from":"Acme","body":${deepest}}`);
      expect(echoed.body).toMatchObject({
        status_code: 403,
        arguement: 'body',
        bad_value: JSON.parse(deepest),
      });
    });

    it('400 ARG_CONFLICT when ttl and expires_at are both given', async () => {
      const r = await send({
        to: TO,
        from: 'Acme',
        body: 'x',
        ttl: '60',
        expires_at: '2027-01-01T00:00:00Z',
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: 'ARG_CONFLICT', arguement: 'ttl' });
    });

    const illegal: [string, Record<string, unknown>, string, unknown][] = [
      ['to not an array', { to: '+61491570156' }, 'to', '+61491570156'],
      ['to empty', { to: [] }, 'to', []],
      ['malformed msisdn', { to: ['+61491570156', 'not-a-number'] }, 'to', 'not-a-number'],
      ['too short msisdn', { to: ['+612'] }, 'to', '+612'],
      ['msisdn over 15 digits', { to: ['+1234567890123456'] }, 'to', '+1234567890123456'],
      [
        'too many recipients',
        { to: Array.from({ length: 51 }, (_, i) => `+614915701${String(i).padStart(2, '0')}`) },
        'to',
        51,
      ],
      ['from of the wrong type', { from: 42 }, 'from', 42],
      ['from malformed', { from: 'Way too long sender' }, 'from', 'Way too long sender'],
      ['empty body', { body: '' }, 'body', ''],
      ['body over 2000', { body: 'a'.repeat(2001) }, 'body', 'a'.repeat(2001)],
      ['ref over 80', { ref: 'r'.repeat(81) }, 'ref', 'r'.repeat(81)],
      ['unknown delivery_report', { delivery_report: 'daily' }, 'delivery_report', 'daily'],
      ['unparseable send_at', { send_at: 'tomorrow' }, 'send_at', 'tomorrow'],
      ['impossible date', { send_at: '2026-02-30 10:00:00' }, 'send_at', '2026-02-30 10:00:00'],
      [
        'expires_at before send_at',
        { send_at: '2026-12-01T10:00:00Z', expires_at: '2026-12-01T09:00:00Z' },
        'expires_at',
        '2026-12-01T09:00:00Z',
      ],
      ['non-numeric ttl', { ttl: 'an hour' }, 'ttl', 'an hour'],
      ['negative ttl', { ttl: -5 }, 'ttl', -5],
      ['negative ttl as a string', { ttl: '-5' }, 'ttl', '-5'],
      ['fractional ttl', { ttl: 1.5 }, 'ttl', 1.5],
      ['ttl of the wrong type', { ttl: true }, 'ttl', true],
      ['send_at before 0001-01-01', { send_at: -62_135_596_801 }, 'send_at', -62_135_596_801],
      ['num_parts_max 0', { num_parts_max: 0 }, 'num_parts_max', 0],
      ['num_parts_max not an integer', { num_parts_max: 1.5 }, 'num_parts_max', 1.5],
      ['callbackURL not http', { callbackURL: 'ftp://example.com/x' }, 'callbackURL', 'ftp://example.com/x'],
      ['callbackURL not a URL', { callbackURL: 'not a url' }, 'callbackURL', 'not a url'],
      ['paused not boolean', { paused: 'yes' }, 'paused', 'yes'],
    ];
    it.each(illegal)('403 VAL_ILLEGAL: %s', async (_name, override, arg, badValue) => {
      const r = await send({ to: TO, from: 'Acme', body: 'x', ...override });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({
        status_code: 403,
        status_msg: 'Forbidden',
        error: expect.any(String),
        type: 'VAL_ILLEGAL',
        arguement: arg,
        bad_value: badValue,
        info: expect.any(String),
      });
    });

    it('403 VAL_ILLEGAL on from when the sender is not validated for the account', async () => {
      const { account, key } = await t.newAccount({ anySender: false });
      const r = await send({ to: TO, from: '+61491570100', body: 'x' }, key);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ type: 'VAL_ILLEGAL', arguement: 'from', bad_value: '+61491570100' });
      await t.store.accounts.addSender(account.id, '+61491570100', t.clock.now);
      expect((await send({ to: TO, from: '61491570100', body: 'x' }, key)).status).toBe(201);
      expect((await send({ to: TO, from: 'Acme', body: 'x' }, key)).status).toBe(403);
    });

    it('200 refusal over num_parts_max, and nothing is stored', async () => {
      const { key } = await t.newAccount({ credits: 100 });
      const r = await send({ to: TO, from: 'Acme', body: 'a'.repeat(161), num_parts_max: 1 }, key);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ num_parts: 2, num_parts_max: 1, info: expect.any(String) });
      const list = await call(t, 'GET', '/v1/sms/messages', undefined, key);
      expect(list.body.data).toEqual([]);
      expect(
        (await send({ to: TO, from: 'Acme', body: 'a'.repeat(161), num_parts_max: 2 }, key)).status,
      ).toBe(201);
    });
  });

  describe('credits', () => {
    it('reserves parts x recipients and refuses with CREDIT_INSUFFICIENT when short', async () => {
      const { account, key } = await t.newAccount({ credits: 10 });
      const two = ['+61491570156', '+61491570157'];
      expect((await send({ to: two, from: 'Acme', body: 'a'.repeat(161) }, key)).status).toBe(201);
      expect((await t.store.accounts.get(account.id))?.credits).toBe(6);
      const r = await send(
        { to: [...two, '+61491570158', '+61491570159'], from: 'Acme', body: 'a'.repeat(161) },
        key,
      );
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ type: 'CREDIT_INSUFFICIENT', arguement: 'to' });
      expect((await t.store.accounts.get(account.id))?.credits).toBe(6);
      expect((await send({ to: two, from: 'Acme', body: 'x' }, key)).status).toBe(201);
      expect((await t.store.accounts.get(account.id))?.credits).toBe(4);
    });

    it('never overdraws under concurrent sends', async () => {
      const { account, key } = await t.newAccount({ credits: 5 });
      const results = await Promise.all(
        Array.from({ length: 12 }, () => send({ to: TO, from: 'Acme', body: 'x' }, key)),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(5);
      expect(results.filter((r) => r.status === 403)).toHaveLength(7);
      expect((await t.store.accounts.get(account.id))?.credits).toBe(0);
    });
  });
});
