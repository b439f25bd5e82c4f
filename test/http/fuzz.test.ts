import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const FIELDS = [
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
];
const QUERY_KEYS = [
  'from',
  'ref',
  'paused',
  'completed',
  'messageID.min',
  'messageID.max',
  'created_at.min',
  'created_at.max',
  'limit',
  'offset',
  'sort',
];

/** Values that look almost right: the shapes that slip past naive validation. */
const nearMiss = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    '+61491570156',
    '61491570156',
    ' 61491570156',
    '',
    'Acme',
    '2026-12-01 10:00:00',
    '1796119200',
    '-1',
    '1e3',
    'null',
    'summary',
    '😀'.repeat(3),
  ),
  fc.array(fc.oneof(fc.string(), fc.constantFrom('+61491570156', '+1', '')), { maxLength: 4 }),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 2100 }),
);

function isWellFormedError(status: number, body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return b.status_code === status && typeof b.status_msg === 'string';
}

describe.each(ENGINES)('random input never breaks the API on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());

  it('POST bodies: no 5xx, every error well formed', async () => {
    const body = fc.oneof(
      fc.dictionary(fc.constantFrom(...FIELDS), nearMiss),
      fc.record({ to: nearMiss, from: nearMiss, body: nearMiss }),
      fc.jsonValue(),
    );
    const raw = fc.oneof(
      body.map((b) => JSON.stringify(b)),
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(raw, async (payload) => {
        const r = await t.app.inject({
          method: 'POST',
          url: '/v1/sms/message',
          headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
          payload,
        });
        expect(r.statusCode).toBeLessThan(500);
        if (r.statusCode >= 400) expect(isWellFormedError(r.statusCode, JSON.parse(r.body))).toBe(true);
        else expect([200, 201]).toContain(r.statusCode);
      }),
      { numRuns: 300 },
    );
  });

  it('list query strings: no 5xx, every error well formed', async () => {
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom(
        '',
        '-messageID',
        'from,-ref',
        'true',
        '0',
        '500',
        '501',
        '2026-11-21 00:00:00',
        '%',
        '%zz',
        '+61491570156',
      ),
    );
    const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string()), value), {
      maxLength: 6,
    });
    await fc.assert(
      fc.asyncProperty(query, async (pairs) => {
        const qs = pairs
          .map(([k, v]) => `${encodeURIComponent(k)}=${Math.random() < 0.5 ? encodeURIComponent(v) : v}`)
          .join('&');
        const r = await t.app.inject({
          method: 'GET',
          url: `/v1/sms/messages?${qs}`,
          headers: { authorization: `Bearer ${t.key}` },
        });
        expect(r.statusCode).toBeLessThan(500);
        const parsed = JSON.parse(r.body);
        if (r.statusCode >= 400) expect(isWellFormedError(r.statusCode, parsed)).toBe(true);
        else expect(Array.isArray(parsed.data)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('message paths: no 5xx for any id or options segment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.option(fc.string()), async (id, options) => {
        const path = `/v1/sms/message/${encodeURIComponent(id)}${options === null ? '' : `/${encodeURIComponent(options)}`}`;
        const r = await t.app.inject({
          method: 'GET',
          url: path,
          headers: { authorization: `Bearer ${t.key}` },
        });
        expect(r.statusCode).toBeLessThan(500);
        if (r.statusCode >= 400) expect(isWellFormedError(r.statusCode, JSON.parse(r.body))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
