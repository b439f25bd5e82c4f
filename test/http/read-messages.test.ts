import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';

const STATUS_NAMES = [
  'pending',
  'submitted',
  'sent',
  'delivered',
  'cancelled',
  'expired',
  'aborted',
  'rejected',
  'failed',
  'deleted',
  'unknown',
];

describe.each(ENGINES)('reading outbound messages on %s', (engine) => {
  let t: TestApp;
  let id: number;
  beforeAll(async () => {
    t = await createTestApp(engine);
    const r = await call(t, 'POST', '/v1/sms/message', {
      to: ['+61491570156', '+61491570157'],
      from: 'Acme',
      body: 'Hello',
      ref: 'r1',
    });
    id = r.body.messageID;
  });
  afterAll(async () => t.close());

  it('plain read: to is an array, times RFC 3339 UTC, absent values null', async () => {
    const r = await call(t, 'GET', `/v1/sms/message/${id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      messageID: id,
      to: ['+61491570156', '+61491570157'],
      from: 'Acme',
      body: 'Hello',
      send_at: '2026-11-21T12:00:00.000Z',
      expires_at: null,
      ref: 'r1',
      callbackURL: null,
      paused: false,
    });
  });

  it('meta adds created_at, complete_at, num_parts and balance_used', async () => {
    const r = await call(t, 'GET', `/v1/sms/message/${id}/meta`);
    expect(r.body).toMatchObject({
      to: ['+61491570156', '+61491570157'],
      created_at: '2026-11-21T12:00:00.000Z',
      complete_at: null,
      num_parts: 1,
      balance_used: 0,
    });
    expect(r.body.status).toBeUndefined();
  });

  it('status makes to a status map and adds counts of all eleven statuses', async () => {
    const r = await call(t, 'GET', `/v1/sms/message/${id}/status`);
    // Due at once, so queued for the carrier in the POST's own commit (decisions §7).
    expect(r.body.to).toEqual({ '+61491570156': 'submitted', '+61491570157': 'submitted' });
    expect(Object.keys(r.body.status).sort()).toEqual([...STATUS_NAMES].sort());
    expect(r.body.status.submitted).toBe(2);
    expect(r.body.status.pending).toBe(0);
    expect(r.body.created_at).toBeUndefined();
  });

  it('meta and status together, in either order', async () => {
    for (const options of ['meta,status', 'status,meta']) {
      const r = await call(t, 'GET', `/v1/sms/message/${id}/${options}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        num_parts: 1,
        status: { submitted: 2 },
        to: { '+61491570156': 'submitted' },
      });
    }
  });

  it('404 with info for options outside the rules', async () => {
    for (const options of ['foo', 'meta,meta', 'meta,status,meta', 'meta,', 'META']) {
      const r = await call(t, 'GET', `/v1/sms/message/${id}/${options}`);
      expect(r.status, options).toBe(404);
      expect(r.body).toEqual({ status_code: 404, status_msg: 'Not Found', info: expect.any(String) });
    }
  });

  it('404 for unknown, non-integer and other accounts’ messages', async () => {
    const other = await t.newAccount();
    for (const [path, key] of [
      [`/v1/sms/message/999999`, t.key],
      [`/v1/sms/message/abc`, t.key],
      [`/v1/sms/message/1.5`, t.key],
      [`/v1/sms/message/-1`, t.key],
      [`/v1/sms/message/${id}`, other.key],
      [`/v1/sms/message/${id}/meta`, other.key],
    ] as const) {
      const r = await call(t, 'GET', path, undefined, key);
      expect(r.status, path).toBe(404);
      expect(r.body).toMatchObject({ status_code: 404, status_msg: 'Not Found' });
    }
  });

  it('401 without a key', async () => {
    expect((await call(t, 'GET', `/v1/sms/message/${id}`, undefined, null)).status).toBe(401);
    expect((await call(t, 'GET', `/v1/sms/messages`, undefined, null)).status).toBe(401);
  });
});

describe.each(ENGINES)('GET /v1/sms/messages on %s', (engine) => {
  let t: TestApp;
  let key: string;
  const ids: number[] = [];
  const list = async (query = '') => call(t, 'GET', `/v1/sms/messages${query}`, undefined, key);

  beforeAll(async () => {
    t = await createTestApp(engine);
    ({ key } = await t.newAccount());
    const start = t.clock.now;
    const specs = [
      { from: 'Acme', ref: 'a', paused: false },
      { from: '+61491570100', ref: 'b', paused: true },
      { from: 'Acme', ref: null, paused: false },
      { from: 'Other', ref: 'a', paused: false },
      { from: '+61491570101', ref: null, paused: true },
    ];
    for (const [i, spec] of specs.entries()) {
      t.clock.now = start + i * 60_000;
      const r = await call(
        t,
        'POST',
        '/v1/sms/message',
        { to: [`+6149157015${i}`], body: `m${i}`, ...spec },
        key,
      );
      ids.push(r.body.messageID);
    }
    // One from two days ago, outside the default 24-hour window.
    t.clock.now = start - 48 * 3600_000;
    const old = await call(
      t,
      'POST',
      '/v1/sms/message',
      { to: ['+61491570159'], from: 'Acme', body: 'old' },
      key,
    );
    ids.push(old.body.messageID);
    t.clock.now = start + 10 * 60_000;
  });
  afterAll(async () => t.close());

  const idsOf = (body: { data: { messageID: number }[] }) => body.data.map((m) => m.messageID);

  it('defaults: last 24 hours, newest first, plain shape', async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(idsOf(r.body)).toEqual([ids[4], ids[3], ids[2], ids[1], ids[0]]);
    expect(r.body.more_results).toBe(false);
    expect(r.body.data[0]).toEqual({
      messageID: ids[4],
      to: ['+61491570154'],
      from: '+61491570101',
      body: 'm4',
      send_at: expect.any(String),
      expires_at: null,
      ref: null,
      callbackURL: null,
      paused: true,
    });
  });

  it('filters by from, repeated or comma-separated, msisdns normalised', async () => {
    expect(idsOf((await list('?from=Acme')).body)).toEqual([ids[2], ids[0]]);
    expect(idsOf((await list('?from=Acme&from=61491570100')).body)).toEqual([ids[2], ids[1], ids[0]]);
    expect(idsOf((await list('?from=Acme,%2B61491570100')).body)).toEqual([ids[2], ids[1], ids[0]]);
    // An unencoded + arrives as a space.
    expect(idsOf((await list('?from=+61491570101')).body)).toEqual([ids[4]]);
  });

  it('filters by ref, empty selecting messages without one', async () => {
    expect(idsOf((await list('?ref=a')).body)).toEqual([ids[3], ids[0]]);
    expect(idsOf((await list('?ref=')).body)).toEqual([ids[4], ids[2]]);
  });

  it('filters by paused and completed', async () => {
    expect(idsOf((await list('?paused=true')).body)).toEqual([ids[4], ids[1]]);
    expect(idsOf((await list('?paused=false')).body)).toEqual([ids[3], ids[2], ids[0]]);
    expect(idsOf((await list('?completed=true')).body)).toEqual([]);
    expect(idsOf((await list('?completed=false')).body)).toHaveLength(5);
  });

  it('filters by messageID and created_at ranges', async () => {
    expect(idsOf((await list(`?messageID.min=${ids[1]}&messageID.max=${ids[3]}`)).body)).toEqual([
      ids[3],
      ids[2],
      ids[1],
    ]);
    const all = await list('?created_at.min=2020-01-01T00:00:00Z');
    expect(idsOf(all.body)).toContain(ids[5]);
    const window = await list('?created_at.min=2026-11-21 12:01:00&created_at.max=2026-11-21T12:03:00Z');
    expect(idsOf(window.body)).toEqual([ids[3], ids[2], ids[1]]);
  });

  it('takes created_at filters before 1970 (decisions §6)', async () => {
    for (const query of [
      '?created_at.min=1960-01-01T00:00:00Z',
      '?created_at.min=1969-12-31 23:59:59',
      '?created_at.min=1969-07-20T20:17:40',
      '?created_at.min=-86400',
    ]) {
      const r = await list(query);
      expect(r.status, query).toBe(200);
      expect(idsOf(r.body), query).toEqual([ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]]);
    }
    const none = await list('?created_at.min=1900-01-01T00:00:00Z&created_at.max=1969-12-31T23:59:59Z');
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });

  it('reads created_at filters without a zone, T or space, in the account timezone', async () => {
    const tz = await t.newAccount({ timezone: 'America/Sao_Paulo' });
    const posted: number[] = [];
    const saved = t.clock.now;
    for (const at of ['2026-11-21T12:00:00Z', '2026-11-21T13:00:00Z']) {
      t.clock.now = Date.parse(at);
      const r = await call(
        t,
        'POST',
        '/v1/sms/message',
        { to: ['+61491570150'], from: 'Acme', body: 'x' },
        tz.key,
      );
      posted.push(r.body.messageID);
    }
    t.clock.now = saved;
    // 10:00 in São Paulo (UTC-3) is 13:00Z.
    for (const query of ['?created_at.min=2026-11-21T10:00:00', '?created_at.min=2026-11-21 10:00:00']) {
      const r = await call(t, 'GET', `/v1/sms/messages${query}`, undefined, tz.key);
      expect(idsOf(r.body), query).toEqual([posted[1]]);
    }
    const before = await call(
      t,
      'GET',
      '/v1/sms/messages?created_at.max=2026-11-21T09:59:59.999',
      undefined,
      tz.key,
    );
    expect(idsOf(before.body)).toEqual([posted[0]]);
  });

  it('sorts by each field, ties broken by messageID descending', async () => {
    expect(idsOf((await list('?sort=messageID')).body)).toEqual([ids[0], ids[1], ids[2], ids[3], ids[4]]);
    expect(idsOf((await list('?sort=from')).body)).toEqual([ids[1], ids[4], ids[2], ids[0], ids[3]]);
    expect(idsOf((await list('?sort=-from,messageID')).body)).toEqual([
      ids[3],
      ids[0],
      ids[2],
      ids[4],
      ids[1],
    ]);
    expect(idsOf((await list('?sort=-from&sort=messageID')).body)).toEqual([
      ids[3],
      ids[0],
      ids[2],
      ids[4],
      ids[1],
    ]);
    expect(idsOf((await list('?sort=ref')).body)).toEqual([ids[3], ids[0], ids[1], ids[4], ids[2]]);
    expect(idsOf((await list('?sort=-created_at')).body)).toEqual([ids[4], ids[3], ids[2], ids[1], ids[0]]);
    expect((await list('?sort=send_at')).status).toBe(200);
    expect((await list('?sort=complete_at')).status).toBe(200);
  });

  it('pages with limit and offset; more_results exactly when rows remain', async () => {
    const page1 = await list('?limit=2');
    expect(idsOf(page1.body)).toEqual([ids[4], ids[3]]);
    expect(page1.body.more_results).toBe(true);
    const page3 = await list('?limit=2&offset=4');
    expect(idsOf(page3.body)).toEqual([ids[0]]);
    expect(page3.body.more_results).toBe(false);
    const exact = await list('?limit=5');
    expect(exact.body.more_results).toBe(false);
    const before = await list('?limit=4&offset=0');
    expect(before.body.more_results).toBe(true);
  });

  it('400 VAL_ILLEGAL for malformed query parameters', async () => {
    for (const [query, arg] of [
      ['?limit=501', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=-1', 'limit'],
      ['?offset=x', 'offset'],
      ['?sort=body', 'sort'],
      ['?sort=-colour', 'sort'],
      ['?created_at.min=yesterday', 'created_at.min'],
      ['?messageID.min=1.5', 'messageID.min'],
      ['?paused=maybe', 'paused'],
      ['?completed=2', 'completed'],
      ['?from=not-a-number!', 'from'],
      ['?limit=1&limit=2', 'limit'],
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

  it('never shows another account’s messages', async () => {
    const r = await call(t, 'GET', '/v1/sms/messages', undefined, t.key);
    expect(r.body.data).toEqual([]);
  });

  it('limit 500 is allowed', async () => {
    expect((await list('?limit=500')).status).toBe(200);
  });
});
