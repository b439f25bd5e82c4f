import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { takeViolations } from '../helpers/contract.js';

/**
 * Hostile input over the public endpoints: whatever is sent, no 5xx, and every answer is one
 * the OpenAPI document describes for its operation and status (the contract check of
 * test/helpers/contract.ts, asserted after each request so fast-check can shrink a failure).
 *
 * Seeded, so a run is reproducible: a failure prints its seed and path, and
 * `fc.assert(…, { seed, path })` replays it. The budget is fixed: NUM_RUNS inputs per
 * property, cut short after TIME_LIMIT_MS on a slow machine.
 */
const SEED = 20_261_121;
const NUM_RUNS = 250;
const TIME_LIMIT_MS = 4_000;
const settings = { seed: SEED, numRuns: NUM_RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS } as const;

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
    '2026-12-01T10:00:00',
    '1969-07-20T20:17:40-0300',
    '0000-01-01T00:00:00Z',
    '1796119200',
    '-1',
    '1e3',
    'null',
    'summary',
    '😀'.repeat(3),
  ),
  fc.array(fc.oneof(fc.string(), fc.constantFrom('+61491570156', '+1', '')), { maxLength: 4 }),
  fc.integer(),
  fc.integer({ min: -100_000_000_000, max: 300_000_000_000 }),
  fc.double(),
  fc.string({ maxLength: 2100 }),
);

/** JSON text nested `depth` levels deep, the hostile input that once made a 500. */
const deep = fc
  .tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom(['[', ']'], ['{"a":', '}']))
  .map(
    ([depth, [open, close]]) => `${open!.repeat(depth)}${close === '}' ? '1' : ''}${close!.repeat(depth)}`,
  );

function wellFormedError(status: number, body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    'status_code' in body &&
    body.status_code === status &&
    'status_msg' in body &&
    typeof body.status_msg === 'string'
  );
}

describe.each(ENGINES)('random input never breaks the API on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());

  async function request(method: 'GET' | 'POST', url: string, payload?: string) {
    const r = await t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      ...(payload !== undefined && { payload }),
    });
    // Taken before asserting, so that a failure leaves nothing behind for the next (shrunk) run.
    const violations = takeViolations();
    expect(r.statusCode).toBeLessThan(500);
    expect(violations).toEqual([]);
    const body: unknown = JSON.parse(r.body);
    if (r.statusCode >= 400) expect(wellFormedError(r.statusCode, body)).toBe(true);
    return { status: r.statusCode, body };
  }

  it('POST /v1/sms/message bodies', async () => {
    const body = fc.oneof(
      fc.dictionary(fc.constantFrom(...FIELDS), nearMiss),
      fc.record({ to: nearMiss, from: nearMiss, body: nearMiss }),
      fc.jsonValue(),
    );
    const raw = fc.oneof(
      body.map((b) => JSON.stringify(b)),
      fc
        .tuple(fc.constantFrom(...FIELDS, 'colour'), deep)
        .map(([field, value]) => `{"to":["+61491570156"],"from":"Acme","body":"x","${field}":${value}}`),
      deep,
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(raw, async (payload) => {
        const { status } = await request('POST', '/v1/sms/message', payload);
        if (status < 400) expect([200, 201]).toContain(status);
      }),
      settings,
    );
  });

  it.each(['/v1/sms/messages', '/v1/sms/inbound'])('GET %s query strings', async (path) => {
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom(
        '',
        '-messageID',
        'from,-ref',
        'received_at',
        'true',
        'TRUE',
        '0',
        '500',
        '501',
        '-1',
        '1.5',
        '1e3',
        '0x10',
        '2026-11-21 00:00:00',
        '1969-12-31T23:59:59',
        '-86400',
        '%',
        '%zz',
        '+61491570156',
      ),
    );
    const query = fc.array(
      fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string()), value, fc.boolean()),
      { maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(query, async (pairs) => {
        const qs = pairs
          .map(([k, v, encoded]) => `${encodeURIComponent(k)}=${encoded ? encodeURIComponent(v) : v}`)
          .join('&');
        const { status, body } = await request('GET', `${path}?${qs}`);
        if (status < 400) expect(body).toMatchObject({ data: expect.any(Array) });
      }),
      settings,
    );
  });

  it('message paths: any id or options segment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.option(fc.string()), fc.boolean(), async (id, options, inbound) => {
        const base = inbound ? '/v1/sms/inbound' : '/v1/sms/message';
        const rest = options === null || inbound ? '' : `/${encodeURIComponent(options)}`;
        await request('GET', `${base}/${encodeURIComponent(id)}${rest}`);
      }),
      settings,
    );
  });
});
