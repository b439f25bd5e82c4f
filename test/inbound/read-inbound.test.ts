import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { addNumber } from '../../src/app/directory.js';
import { receiveInbound } from '../../src/app/receive-inbound.js';
import type { Account } from '../../src/store/port.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

describe.each(ENGINES)('reading inbound messages on %s', (engine) => {
  let t: TestApp;
  let mine: { account: Account; key: string };
  let other: { account: Account; key: string };
  let id: number;
  let noRef: number;
  let othersId: number;

  beforeAll(async () => {
    t = await createTestApp(engine);
    mine = await t.newAccount();
    other = await t.newAccount();
    await addNumber(t.store, mine.account, { msisdn: '+61491570900', ref: 'support' }, t.clock.now);
    await addNumber(t.store, mine.account, { msisdn: '+61491570901' }, t.clock.now);
    await addNumber(t.store, other.account, { msisdn: '+61491570902', ref: 'theirs' }, t.clock.now);
    const deps = { store: t.store, now: () => t.clock.now, logger: pino({ level: 'silent' }) };
    const receivedAt = Date.parse('2026-11-21T12:00:00.123Z');
    ({ messageID: id } = await receiveInbound(deps, {
      from: '61491570150',
      to: '61491570900',
      body: 'Hello back',
      receivedAt,
    }));
    ({ messageID: noRef } = await receiveInbound(deps, {
      from: '+61491570150',
      to: '+61491570901',
      body: 'No ref here',
      receivedAt: receivedAt + 1,
    }));
    ({ messageID: othersId } = await receiveInbound(deps, {
      from: '+61491570150',
      to: '+61491570902',
      body: 'Not yours',
      receivedAt,
    }));
  });
  afterAll(async () => t.close());

  it('reads the exact shape: + msisdns, the number’s ref, received_at as a 6-decimal string', async () => {
    const r = await call(t, 'GET', `/v1/sms/inbound/${id}`, undefined, mine.key);
    expect(r.status).toBe(200);
    expect(r.body).toStrictEqual({
      messageID: id,
      from: '+61491570150',
      to: '+61491570900',
      body: 'Hello back',
      ref: 'support',
      received_at: '1795262400.123000',
    });
  });

  it('ref is null when the number has none', async () => {
    const r = await call(t, 'GET', `/v1/sms/inbound/${noRef}`, undefined, mine.key);
    expect(r.body).toStrictEqual({
      messageID: noRef,
      from: '+61491570150',
      to: '+61491570901',
      body: 'No ref here',
      ref: null,
      received_at: '1795262400.124000',
    });
  });

  it('list items have the same shape as the single read', async () => {
    const r = await call(t, 'GET', '/v1/sms/inbound', undefined, mine.key);
    expect(r.status).toBe(200);
    expect(r.body).toStrictEqual({
      data: [
        (await call(t, 'GET', `/v1/sms/inbound/${noRef}`, undefined, mine.key)).body,
        (await call(t, 'GET', `/v1/sms/inbound/${id}`, undefined, mine.key)).body,
      ],
      more_results: false,
    });
  });

  it('404 for unknown, non-integer and another account’s messages', async () => {
    for (const [path, key] of [
      ['/v1/sms/inbound/999999', mine.key],
      ['/v1/sms/inbound/abc', mine.key],
      ['/v1/sms/inbound/1.5', mine.key],
      ['/v1/sms/inbound/-1', mine.key],
      ['/v1/sms/inbound/0', mine.key],
      ['/v1/sms/inbound/99999999999999999999', mine.key],
      [`/v1/sms/inbound/${othersId}`, mine.key],
      [`/v1/sms/inbound/${id}`, other.key],
    ] as const) {
      const r = await call(t, 'GET', path, undefined, key);
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual({ status_code: 404, status_msg: 'Not Found', info: expect.any(String) });
    }
    expect((await call(t, 'GET', `/v1/sms/inbound/${othersId}`, undefined, other.key)).status).toBe(200);
  });

  it('401 without a key or with a wrong one', async () => {
    for (const key of [null, 'not-a-key']) {
      for (const path of ['/v1/sms/inbound', `/v1/sms/inbound/${id}`]) {
        const r = await call(t, 'GET', path, undefined, key);
        expect(r.status, path).toBe(401);
        expect(r.body).toEqual({ status_code: 401, status_msg: 'Unauthorized' });
      }
    }
  });

  it('OPTIONS answers without a key; other methods are 405 with Allow', async () => {
    for (const path of ['/v1/sms/inbound', `/v1/sms/inbound/${id}`]) {
      const options = await call(t, 'OPTIONS', path, undefined, null);
      expect(options.status).toBe(200);
      expect(options.body).toEqual(['GET', 'OPTIONS']);
      expect(options.headers.allow).toBe('GET, OPTIONS');
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const) {
        const r = await call(t, method, path, undefined, mine.key);
        expect(r.status, `${method} ${path}`).toBe(405);
        expect(r.headers.allow).toBe('GET, OPTIONS');
        if (method !== 'HEAD') {
          expect(r.body).toEqual({
            status_code: 405,
            status_msg: 'Method Not Allowed',
            Allow: ['GET', 'OPTIONS'],
          });
        }
      }
    }
  });

  it('is in the OpenAPI document as indexInboundSms and getInboundSms', async () => {
    const r = await call(t, 'GET', '/v1/openapi.json', undefined, null);
    expect(r.body.paths['/v1/sms/inbound'].get.operationId).toBe('indexInboundSms');
    expect(r.body.paths['/v1/sms/inbound/{messageID}'].get.operationId).toBe('getInboundSms');
    const params = r.body.paths['/v1/sms/inbound'].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(
      expect.arrayContaining([
        'from',
        'ref',
        'completed',
        'messageID.min',
        'messageID.max',
        'created_at.min',
        'created_at.max',
        'limit',
        'offset',
        'sort',
      ]),
    );
    expect(params).not.toContain('paused');
  });
});

describe.each(ENGINES)('GET /v1/sms/inbound on %s', (engine) => {
  let t: TestApp;
  let key: string;
  const ids: number[] = [];
  let start: number;
  const list = async (query = '') => call(t, 'GET', `/v1/sms/inbound${query}`, undefined, key);
  const idsOf = (body: { data: { messageID: number }[] }) => body.data.map((m) => m.messageID);

  beforeAll(async () => {
    t = await createTestApp(engine);
    const mine = await t.newAccount();
    key = mine.key;
    start = t.clock.now;
    await addNumber(t.store, mine.account, { msisdn: '+61491570900', ref: 'alpha' }, start);
    // A webhook URL on this number: its messages stay open until the webhook completes.
    await addNumber(
      t.store,
      mine.account,
      { msisdn: '+61491570901', inboundUrl: 'https://hooks.example.com/in' },
      start,
    );
    await addNumber(t.store, mine.account, { msisdn: '+61491570902', ref: 'beta' }, start);
    // The test account of the helper owns a number too: its messages must never show up here.
    await addNumber(t.store, t.account, { msisdn: '+61491570903', ref: 'alpha' }, start);
    const deps = { store: t.store, now: () => t.clock.now, logger: pino({ level: 'silent' }) };
    // received_at minutes out of id order, so sorting by it differs from the default.
    const specs = [
      { from: '+61491570110', to: '+61491570900', minute: 0 },
      { from: '+61491570111', to: '+61491570901', minute: 3 },
      { from: '+61491570110', to: '+61491570902', minute: 1 },
      { from: '+61491570112', to: '+61491570900', minute: 4 },
      { from: '+61491570111', to: '+61491570901', minute: 2 },
    ];
    for (const [i, spec] of specs.entries()) {
      const r = await receiveInbound(deps, {
        from: spec.from,
        to: spec.to,
        body: `m${i}`,
        receivedAt: start + spec.minute * 60_000,
      });
      ids.push(r.messageID);
    }
    // Two days old: outside the default 24-hour window.
    const old = await receiveInbound(deps, {
      from: '+61491570110',
      to: '+61491570900',
      body: 'old',
      receivedAt: start - 48 * 3600_000,
    });
    ids.push(old.messageID);
    await receiveInbound(deps, {
      from: '+61491570110',
      to: '+61491570903',
      body: 'other',
      receivedAt: start,
    });
    await receiveInbound(deps, {
      from: '+61491570110',
      to: '+61491570999',
      body: 'unrouted',
      receivedAt: start,
    });
    t.clock.now = start + 10 * 60_000;
  });
  afterAll(async () => t.close());

  it('defaults: last 24 hours of receipt, newest first, only this account', async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(idsOf(r.body)).toEqual([ids[4], ids[3], ids[2], ids[1], ids[0]]);
    expect(r.body.more_results).toBe(false);
  });

  it('filters by from, repeated or comma-separated, msisdns normalised', async () => {
    expect(idsOf((await list('?from=%2B61491570110')).body)).toEqual([ids[2], ids[0]]);
    expect(idsOf((await list('?from=61491570110,61491570112')).body)).toEqual([ids[3], ids[2], ids[0]]);
    expect(idsOf((await list('?from=61491570110&from=%2B61491570112')).body)).toEqual([
      ids[3],
      ids[2],
      ids[0],
    ]);
    // An unencoded + arrives as a space.
    expect(idsOf((await list('?from=+61491570111')).body)).toEqual([ids[4], ids[1]]);
  });

  it('filters by ref, empty selecting messages without one', async () => {
    expect(idsOf((await list('?ref=alpha')).body)).toEqual([ids[3], ids[0]]);
    expect(idsOf((await list('?ref=beta')).body)).toEqual([ids[2]]);
    expect(idsOf((await list('?ref=')).body)).toEqual([ids[4], ids[1]]);
    expect(idsOf((await list('?ref=nope')).body)).toEqual([]);
  });

  it('filters by completed: no webhook URL means completed, a due webhook means not', async () => {
    expect(idsOf((await list('?completed=true')).body)).toEqual([ids[3], ids[2], ids[0]]);
    expect(idsOf((await list('?completed=false')).body)).toEqual([ids[4], ids[1]]);
  });

  it('filters by messageID range', async () => {
    expect(idsOf((await list(`?messageID.min=${ids[1]}&messageID.max=${ids[3]}`)).body)).toEqual([
      ids[3],
      ids[2],
      ids[1],
    ]);
    // The two-day-old message has the highest id but lies outside the default window.
    expect(idsOf((await list(`?messageID.min=${ids[4]}`)).body)).toEqual([ids[4]]);
    expect(idsOf((await list(`?messageID.min=${ids[4]}&created_at.min=0`)).body)).toEqual([ids[5], ids[4]]);
    expect(idsOf((await list(`?messageID.max=${ids[0]}&created_at.min=0`)).body)).toEqual([ids[0]]);
  });

  it('filters created_at.min/max on the time of receipt', async () => {
    const all = await list('?created_at.min=2020-01-01T00:00:00Z');
    expect(idsOf(all.body)).toEqual([ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]]);
    const window = await list('?created_at.min=2026-11-21 12:01:00&created_at.max=2026-11-21T12:03:00Z');
    expect(idsOf(window.body)).toEqual([ids[4], ids[2], ids[1]]);
    const unix = await list(`?created_at.min=${start / 1000 + 180}`);
    expect(idsOf(unix.body)).toEqual([ids[3], ids[1]]);
    // Dates before 1970 are valid dates (decisions §6), in every form.
    for (const old of ['1969-12-31T00:00:00Z', '1969-12-31 00:00:00', '1969-12-31T00:00:00', '-86400']) {
      expect(idsOf((await list(`?created_at.min=${old}`)).body), old).toEqual(idsOf(all.body));
    }
  });

  it('sorts by every field of decisions §11, ties broken by messageID descending', async () => {
    expect(idsOf((await list('?sort=messageID')).body)).toEqual([ids[0], ids[1], ids[2], ids[3], ids[4]]);
    expect(idsOf((await list('?sort=-messageID')).body)).toEqual([ids[4], ids[3], ids[2], ids[1], ids[0]]);
    expect(idsOf((await list('?sort=received_at')).body)).toEqual([ids[0], ids[2], ids[4], ids[1], ids[3]]);
    expect(idsOf((await list('?sort=-received_at')).body)).toEqual([ids[3], ids[1], ids[4], ids[2], ids[0]]);
    expect(idsOf((await list('?sort=from')).body)).toEqual([ids[2], ids[0], ids[4], ids[1], ids[3]]);
    expect(idsOf((await list('?sort=-from,messageID')).body)).toEqual([
      ids[3],
      ids[1],
      ids[4],
      ids[0],
      ids[2],
    ]);
    expect(idsOf((await list('?sort=-from&sort=messageID')).body)).toEqual([
      ids[3],
      ids[1],
      ids[4],
      ids[0],
      ids[2],
    ]);
    expect(idsOf((await list('?sort=to')).body)).toEqual([ids[3], ids[0], ids[4], ids[1], ids[2]]);
    expect(idsOf((await list('?sort=-to')).body)).toEqual([ids[2], ids[4], ids[1], ids[3], ids[0]]);
    // Absent refs sort last both ways.
    expect(idsOf((await list('?sort=ref')).body)).toEqual([ids[3], ids[0], ids[2], ids[4], ids[1]]);
    expect(idsOf((await list('?sort=-ref')).body)).toEqual([ids[2], ids[3], ids[0], ids[4], ids[1]]);
    // An unencoded + (a space) before a field means ascending.
    expect(idsOf((await list('?sort=+received_at')).body)).toEqual([ids[0], ids[2], ids[4], ids[1], ids[3]]);
  });

  it('pages with limit and offset; more_results exactly when rows remain', async () => {
    const page1 = await list('?limit=2');
    expect(idsOf(page1.body)).toEqual([ids[4], ids[3]]);
    expect(page1.body.more_results).toBe(true);
    const page2 = await list('?limit=2&offset=2');
    expect(idsOf(page2.body)).toEqual([ids[2], ids[1]]);
    expect(page2.body.more_results).toBe(true);
    const page3 = await list('?limit=2&offset=4');
    expect(idsOf(page3.body)).toEqual([ids[0]]);
    expect(page3.body.more_results).toBe(false);
    expect((await list('?limit=5')).body.more_results).toBe(false);
    expect((await list('?limit=4')).body.more_results).toBe(true);
    const sorted = await list('?sort=received_at&limit=2&offset=1');
    expect(idsOf(sorted.body)).toEqual([ids[2], ids[4]]);
    expect(sorted.body.more_results).toBe(true);
    expect((await list('?offset=9')).body).toEqual({ data: [], more_results: false });
    expect((await list('?limit=500')).status).toBe(200);
  });

  it('has no paused filter: the parameter is ignored like any unknown one', async () => {
    expect(idsOf((await list('?paused=true')).body)).toEqual([ids[4], ids[3], ids[2], ids[1], ids[0]]);
  });

  it('400 VAL_ILLEGAL for malformed query parameters', async () => {
    for (const [query, arg] of [
      ['?limit=501', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=-1', 'limit'],
      ['?limit=1&limit=2', 'limit'],
      ['?offset=x', 'offset'],
      ['?sort=body', 'sort'],
      ['?sort=created_at', 'sort'],
      ['?sort=paused', 'sort'],
      ['?sort=-colour', 'sort'],
      ['?created_at.min=yesterday', 'created_at.min'],
      ['?created_at.max=2026-13-01T00:00:00Z', 'created_at.max'],
      ['?messageID.min=1.5', 'messageID.min'],
      ['?messageID.max=x', 'messageID.max'],
      ['?completed=maybe', 'completed'],
      ['?from=not-a-number!', 'from'],
      ['?ref=a&ref=b', 'ref'],
    ]) {
      const r = await list(query);
      expect(r.status, query).toBe(400);
      expect(r.body, query).toEqual({
        status_code: 400,
        status_msg: 'Bad Request',
        error: expect.any(String),
        type: 'VAL_ILLEGAL',
        arguement: arg,
      });
    }
  });

  it('never shows another account’s or unrouted messages', async () => {
    const r = await call(t, 'GET', '/v1/sms/inbound?created_at.min=0', undefined, t.key);
    expect(r.body.data.map((m: { body: string }) => m.body)).toEqual(['other']);
    const mine = await list('?created_at.min=0');
    expect(mine.body.data.map((m: { body: string }) => m.body)).not.toContain('unrouted');
    expect(mine.body.data.map((m: { body: string }) => m.body)).not.toContain('other');
  });
});
