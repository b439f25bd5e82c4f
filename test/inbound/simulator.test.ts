import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { addNumber } from '../../src/app/directory.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { UsageError } from '../../src/cli/context.js';
import { loadConfig } from '../../src/config/config.js';
import { ConflictError, ValidationError } from '../../src/domain/errors.js';
import { buildApp } from '../../src/http/app.js';
import type { Account } from '../../src/store/port.js';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';
import { checkContract } from '../helpers/contract.js';
import { ENGINES } from '../helpers/engines.js';
import { printedBy } from '../helpers/cli.js';

const PATH = '/admin/v1/simulator/inbound';

describe.each(ENGINES)('POST /admin/v1/simulator/inbound on %s', (engine) => {
  let t: TestApp;
  let mine: { account: Account; key: string };
  const inject = (body: unknown, token: string | null = ADMIN_TOKEN) => call(t, 'POST', PATH, body, token);

  beforeAll(async () => {
    t = await createTestApp(engine);
    mine = await t.newAccount();
    await addNumber(t.store, mine.account, { msisdn: '+61491570900', ref: 'support' }, t.clock.now);
  });
  afterAll(async () => t.close());

  it('stores a routed message (201) that the account reads back', async () => {
    const r = await inject({ from: '61491570150', to: '+61491570900', body: 'Hello from a handset' });
    expect(r.status).toBe(201);
    expect(r.body).toStrictEqual({ messageID: expect.any(Number), accountID: mine.account.id, routed: true });
    const read = await call(t, 'GET', `/v1/sms/inbound/${r.body.messageID}`, undefined, mine.key);
    expect(read.body).toStrictEqual({
      messageID: r.body.messageID,
      from: '+61491570150',
      to: '+61491570900',
      body: 'Hello from a handset',
      ref: 'support',
      received_at: `${t.clock.now / 1000}.000000`,
    });
    const list = await call(t, 'GET', '/v1/sms/inbound', undefined, mine.key);
    expect(list.body.data.map((m: { messageID: number }) => m.messageID)).toContain(r.body.messageID);
  });

  it('stores an unrouted message with accountID null and routed false', async () => {
    const r = await inject({ from: '+61491570150', to: '+61491570999', body: 'nobody home' });
    expect(r.status).toBe(201);
    expect(r.body).toStrictEqual({ messageID: expect.any(Number), accountID: null, routed: false });
    expect((await call(t, 'GET', `/v1/sms/inbound/${r.body.messageID}`, undefined, mine.key)).status).toBe(
      404,
    );
  });

  it('401 without the admin token, with a wrong one, or with an API key', async () => {
    const body = { from: '+61491570150', to: '+61491570900', body: 'x' };
    for (const token of [null, 'wrong', mine.key]) {
      const r = await inject(body, token);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ status_code: 401, status_msg: 'Unauthorized' });
    }
  });

  it('validates the body: missing → 400 ARG_MISSING, disallowed → 403 VAL_ILLEGAL', async () => {
    const ok = { from: '+61491570150', to: '+61491570900', body: 'x' };
    for (const name of ['from', 'to', 'body'] as const) {
      const { [name]: _omitted, ...rest } = ok;
      for (const body of [rest, { ...rest, [name]: null }]) {
        const r = await inject(body);
        expect(r.status, name).toBe(400);
        expect(r.body).toEqual({
          status_code: 400,
          status_msg: 'Bad Request',
          error: expect.any(String),
          type: 'ARG_MISSING',
          arguement: name,
        });
      }
    }
    for (const [name, value] of [
      ['from', 'not-a-number'],
      ['to', '+0123'],
      ['to', 'Acme'],
      ['from', 61491570150],
      ['body', 42],
    ] as const) {
      const r = await inject({ ...ok, [name]: value });
      expect(r.status, `${name}=${value}`).toBe(403);
      expect(r.body).toEqual({
        status_code: 403,
        status_msg: 'Forbidden',
        error: expect.any(String),
        type: 'VAL_ILLEGAL',
        arguement: name,
        bad_value: value,
        info: expect.any(String),
      });
    }
    const malformed = await inject('{"from":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ type: 'JSON_INVALID', arguement: null });
  });

  it('OPTIONS answers without a token; other methods are 405 with Allow', async () => {
    const options = await call(t, 'OPTIONS', PATH, undefined, null);
    expect(options.status).toBe(200);
    expect(options.body).toEqual(['POST', 'OPTIONS']);
    expect(options.headers.allow).toBe('POST, OPTIONS');
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const) {
      const r = await call(t, method, PATH, undefined, null);
      expect(r.status, method).toBe(405);
      expect(r.headers.allow).toBe('POST, OPTIONS');
      if (method !== 'HEAD') {
        expect(r.body).toEqual({
          status_code: 405,
          status_msg: 'Method Not Allowed',
          Allow: ['POST', 'OPTIONS'],
        });
      }
    }
  });

  it('403 VAL_ILLEGAL with info when the carrier is not the simulator', async () => {
    const app = await buildApp({
      config: loadConfig({ SMSGW_ADMIN_TOKEN: ADMIN_TOKEN, SMSGW_CARRIER: 'smpp' }),
      store: t.store,
      logger: pino({ level: 'silent' }),
      now: () => t.clock.now,
    });
    checkContract(app);
    try {
      const r = await app.inject({
        method: 'POST',
        url: PATH,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ from: '+61491570150', to: '+61491570900', body: 'x' }),
      });
      expect(r.statusCode).toBe(403);
      expect(JSON.parse(r.body)).toEqual({
        status_code: 403,
        status_msg: 'Forbidden',
        error: expect.stringContaining('SMSGW_CARRIER=simulator'),
        type: 'VAL_ILLEGAL',
        arguement: null,
        bad_value: null,
        info: expect.stringContaining('SMSGW_CARRIER=simulator'),
      });
    } finally {
      await app.close();
    }
  });

  it('is in the OpenAPI document under admin', async () => {
    const r = await call(t, 'GET', '/v1/openapi.json', undefined, null);
    const post = r.body.paths[PATH].post;
    expect(post.tags).toEqual(['admin']);
    expect(post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/SimulatedInboundRequest',
    });
    expect(Object.keys(r.body.components.schemas.SimulatedInboundRequest.properties)).toEqual([
      'from',
      'to',
      'body',
    ]);
  });
});

describe.each(ENGINES)('smsgw simulate inbound on %s', (engine) => {
  let t: TestApp;
  let mine: { account: Account; key: string };
  const command = COMMANDS['simulate inbound']!;
  let output = '';
  const config = (env: Record<string, string> = {}) =>
    loadConfig({ SMSGW_DATABASE_URL: t.db.url, SMSGW_LOG_LEVEL: 'silent', ...env });
  /** Runs the command as `smsgw simulate inbound …` would, returning what it printed. */
  const run = async (argv: string[], env: Record<string, string> = {}) => {
    output = await printedBy(() => command.run(argv, config(env)));
    return JSON.parse(output) as { messageID: number; accountID: number | null; routed: boolean };
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    mine = await t.newAccount();
    await addNumber(t.store, mine.account, { msisdn: '+61491570900', ref: 'support' }, t.clock.now);
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => t.close());

  it('is listed with a usage line', () => {
    expect(command.usage).toContain('smsgw simulate inbound --from');
  });

  it('stores a routed message without a server; the API reads it back', async () => {
    const before = Date.now();
    const printed = await run(['--from', '61491570150', '--to', '+61491570900', '--body', 'Hi from the CLI']);
    expect(printed).toStrictEqual({
      messageID: expect.any(Number),
      accountID: mine.account.id,
      routed: true,
    });
    const read = await call(t, 'GET', `/v1/sms/inbound/${printed.messageID}`, undefined, mine.key);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      messageID: printed.messageID,
      from: '+61491570150',
      to: '+61491570900',
      body: 'Hi from the CLI',
      ref: 'support',
    });
    expect(read.body.received_at).toMatch(/^\d+\.\d{6}$/);
    // The CLI reads the real clock.
    expect(Number(read.body.received_at) * 1000).toBeGreaterThanOrEqual(before - 1);
    const list = await call(t, 'GET', '/v1/sms/inbound?created_at.min=0', undefined, mine.key);
    expect(list.body.data.map((m: { messageID: number }) => m.messageID)).toContain(printed.messageID);
  });

  it('the CLI and the HTTP injection store the same kind of message', async () => {
    const viaCli = await run(['--from', '+61491570151', '--to', '+61491570900', '--body', 'same']);
    const viaHttp = await call(
      t,
      'POST',
      PATH,
      { from: '+61491570151', to: '+61491570900', body: 'same' },
      ADMIN_TOKEN,
    );
    const [a, b] = await Promise.all(
      [viaCli.messageID, viaHttp.body.messageID].map(
        async (id) => (await call(t, 'GET', `/v1/sms/inbound/${id}`, undefined, mine.key)).body,
      ),
    );
    const { messageID: _a, received_at: _ra, ...restA } = a;
    const { messageID: _b, received_at: _rb, ...restB } = b;
    expect(restA).toStrictEqual(restB);
  });

  it('an empty body is allowed; an unrouted number prints accountID null', async () => {
    const printed = await run(['--from', '+61491570150', '--to', '+61491570999', '--body', '']);
    expect(printed).toStrictEqual({ messageID: expect.any(Number), accountID: null, routed: false });
  });

  it('refuses usage mistakes, bad numbers and a non-simulator carrier', async () => {
    await expect(run(['--to', '+61491570900', '--body', 'x'])).rejects.toBeInstanceOf(UsageError);
    await expect(run(['--from', '+61491570150', '--to', '+61491570900'])).rejects.toBeInstanceOf(UsageError);
    await expect(
      run(['--from', '+61491570150', '--to', '+61491570900', '--body', 'x', '--colour', 'red']),
    ).rejects.toBeInstanceOf(UsageError);
    await expect(run(['--from', 'abc', '--to', '+61491570900', '--body', 'x'])).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      run(['--from', '+61491570150', '--to', '+61491570900', '--body', 'x'], { SMSGW_CARRIER: 'smpp' }),
    ).rejects.toBeInstanceOf(ConflictError);
  });
});
