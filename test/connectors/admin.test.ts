import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';
import { checkContract } from '../helpers/contract.js';
import { ENGINES } from '../helpers/engines.js';

const SMSC = { host: 'smsc.example.net', port: 2775, system_id: 'smsgw', password: 'secret' };

describe.each(ENGINES)('connector and route admin API on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());
  const admin = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
    call(t, method, `/admin/v1${path}`, body, ADMIN_TOKEN);

  it('requires the admin token on every path; OPTIONS and 405 answer without it', async () => {
    const paths: [string, ('GET' | 'POST' | 'PATCH' | 'DELETE')[]][] = [
      ['/connectors', ['GET', 'POST']],
      ['/connectors/any', ['GET', 'PATCH', 'DELETE']],
      ['/routes', ['GET', 'POST']],
      ['/routes/1', ['DELETE']],
    ];
    for (const [path, methods] of paths) {
      for (const method of methods) {
        for (const key of [null, 'wrong', t.key]) {
          const r = await call(t, method, `/admin/v1${path}`, method === 'GET' ? undefined : {}, key);
          expect(r.status, `${method} ${path}`).toBe(401);
        }
      }
      const options = await call(t, 'OPTIONS', `/admin/v1${path}`, undefined, null);
      expect(options.status).toBe(200);
      expect(options.body).toEqual([...methods, 'OPTIONS']);
      expect(options.headers.allow).toBe([...methods, 'OPTIONS'].join(', '));
      const other = (['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const).find(
        (m) => !methods.includes(m as never),
      )!;
      const refused = await call(t, other, `/admin/v1${path}`, undefined, null);
      expect(refused.status).toBe(405);
      expect(refused.body).toEqual({
        status_code: 405,
        status_msg: 'Method Not Allowed',
        Allow: [...methods, 'OPTIONS'],
      });
    }
  });

  it('creates a connector with defaults and never returns its password', async () => {
    const r = await admin('POST', '/connectors', { name: 'defaults', ...SMSC });
    expect(r.status).toBe(201);
    expect(r.body).toStrictEqual({
      connectorID: expect.any(Number),
      name: 'defaults',
      host: 'smsc.example.net',
      port: 2775,
      system_id: 'smsgw',
      password_set: true,
      system_type: '',
      bind_mode: 'transceiver',
      tls: false,
      window: 10,
      throughput: 0,
      source_ton: null,
      source_npi: null,
      dest_ton: 1,
      dest_npi: 1,
      default_data_coding: 0,
      concatenation: 'udh8',
      request_receipts: true,
      enabled: true,
      max_binds: 1,
      created_at: '2026-11-21T12:00:00.000Z',
      updated_at: '2026-11-21T12:00:00.000Z',
      state: null,
    });
    for (const read of [await admin('GET', '/connectors/defaults'), await admin('GET', '/connectors')]) {
      expect(JSON.stringify(read.body)).not.toContain('secret');
    }
    expect((await t.store.connectors.get('defaults'))?.password).toBe('secret');
  });

  it('stores every setting given', async () => {
    const settings = {
      system_type: 'VMA',
      bind_mode: 'transmitter_receiver',
      tls: true,
      window: 50,
      throughput: 200,
      source_ton: 5,
      source_npi: 0,
      dest_ton: 0,
      dest_npi: 9,
      default_data_coding: 3,
      concatenation: 'payload',
      request_receipts: false,
      enabled: false,
      max_binds: 3,
    };
    const r = await admin('POST', '/connectors', { name: 'Full_set-1', ...SMSC, password: '', ...settings });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'Full_set-1', password_set: false, ...settings });
    expect(await t.store.connectors.get('Full_set-1')).toMatchObject({
      bindMode: 'transmitter_receiver',
      tls: true,
      sourceTon: 5,
      sourceNpi: 0,
      defaultDataCoding: 3,
      concatenation: 'payload',
      requestReceipts: false,
      enabled: false,
      maxBinds: 3,
    });
  });

  it('refuses bad values with 403 VAL_ILLEGAL naming the argument', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'name'],
      [{ name: 'has space' }, 'name'],
      [{ name: 'x'.repeat(41) }, 'name'],
      [{ host: '' }, 'host'],
      [{ host: 'smpp://host' }, 'host'],
      [{ port: 0 }, 'port'],
      [{ port: 65536 }, 'port'],
      [{ port: '2775' }, 'port'],
      [{ system_id: '' }, 'system_id'],
      [{ system_id: 'sixteen-chars-xx' }, 'system_id'],
      [{ password: 'ninechars' }, 'password'],
      [{ system_type: 'thirteen-char' }, 'system_type'],
      [{ bind_mode: 'receiver' }, 'bind_mode'],
      [{ tls: 'yes' }, 'tls'],
      [{ window: 0 }, 'window'],
      [{ window: 1001 }, 'window'],
      [{ throughput: -1 }, 'throughput'],
      [{ throughput: 1.5 }, 'throughput'],
      [{ source_ton: 7 }, 'source_ton'],
      [{ source_npi: 19 }, 'source_npi'],
      [{ dest_ton: -1 }, 'dest_ton'],
      [{ dest_npi: 19 }, 'dest_npi'],
      [{ default_data_coding: 8 }, 'default_data_coding'],
      [{ concatenation: 'udh32' }, 'concatenation'],
      [{ request_receipts: 1 }, 'request_receipts'],
      [{ enabled: 'no' }, 'enabled'],
      [{ max_binds: 0 }, 'max_binds'],
      [{ max_binds: 101 }, 'max_binds'],
      [{ max_binds: 1.5 }, 'max_binds'],
    ];
    for (const [fields, argument] of cases) {
      const r = await admin('POST', '/connectors', { name: 'bad', ...SMSC, ...fields });
      expect(r.status, JSON.stringify(fields)).toBe(403);
      expect(r.body).toMatchObject({
        status_code: 403,
        type: 'VAL_ILLEGAL',
        arguement: argument,
        bad_value: Object.values(fields)[0],
        info: expect.any(String),
      });
    }
    const range = await admin('POST', '/connectors', { name: 'bad', ...SMSC, window: 0 });
    expect(range.body.info).toBe('window must be 1 to 1000 outstanding submits');
    expect(await t.store.connectors.get('bad')).toBeNull();
  });

  it('asks for the required settings with 400 ARG_MISSING', async () => {
    for (const field of ['name', 'host', 'port', 'system_id', 'password']) {
      const body: Record<string, unknown> = { name: 'missing', ...SMSC };
      delete body[field];
      const r = await admin('POST', '/connectors', body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: 'ARG_MISSING', arguement: field });
    }
    expect((await admin('POST', '/connectors', '[1]')).body).toMatchObject({ type: 'JSON_INVALID' });
  });

  it('refuses a second connector of the same name with 409', async () => {
    expect((await admin('POST', '/connectors', { name: 'twice', ...SMSC })).status).toBe(201);
    const r = await admin('POST', '/connectors', { name: 'twice', ...SMSC, host: 'other.example' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ status_code: 409, status_msg: 'Conflict' });
    expect((await t.store.connectors.get('twice'))?.host).toBe('smsc.example.net');
  });

  it('changes only the settings given, and clears the sender TON/NPI with null', async () => {
    await admin('POST', '/connectors', { name: 'patched', ...SMSC, source_ton: 5, source_npi: 0 });
    t.clock.now += 60_000;
    const r = await admin('PATCH', '/connectors/patched', {
      port: 2776,
      password: 'new',
      source_ton: null,
      source_npi: null,
      enabled: false,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: 'patched',
      host: 'smsc.example.net',
      port: 2776,
      source_ton: null,
      source_npi: null,
      enabled: false,
      created_at: '2026-11-21T12:00:00.000Z',
      updated_at: '2026-11-21T12:01:00.000Z',
    });
    expect(r.body.password).toBeUndefined();
    expect((await t.store.connectors.get('patched'))?.password).toBe('new');
    const bad = await admin('PATCH', '/connectors/patched', { window: 5000 });
    expect(bad.status).toBe(403);
    expect(bad.body).toMatchObject({ arguement: 'window', bad_value: 5000 });
    expect((await admin('PATCH', '/connectors/patched', { port: null })).body).toMatchObject({
      type: 'ARG_MISSING',
      arguement: 'port',
    });
    expect((await admin('GET', '/connectors/patched')).body.port).toBe(2776);
    const unchanged = await admin('PATCH', '/connectors/patched', {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.port).toBe(2776);
  });

  it('answers 404 for an unknown connector or route', async () => {
    for (const name of ['nobody', 'bad%20name']) {
      expect((await admin('GET', `/connectors/${name}`)).status).toBe(404);
      expect((await admin('PATCH', `/connectors/${name}`, { port: 1 })).status).toBe(404);
      expect((await admin('DELETE', `/connectors/${name}`)).status).toBe(404);
    }
    for (const id of ['999999', 'abc', '-1', '1.5']) {
      const r = await admin('DELETE', `/routes/${id}`);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ status_code: 404, status_msg: 'Not Found' });
    }
  });

  it('adds routes, lists them in the order they are tried, and removes them', async () => {
    await admin('POST', '/connectors', { name: 'r-primary', ...SMSC });
    await admin('POST', '/connectors', { name: 'r-backup', ...SMSC });
    const before = (await admin('GET', '/routes')).body.routes.length;
    const added = [];
    for (const [prefix, connector, priority] of [
      ['+', 'r-backup', 5],
      ['+61', 'r-backup', 1],
      ['+614', 'r-primary', 1],
      ['+61', 'r-primary', 0],
      ['+44', 'r-primary', undefined],
    ] as const) {
      const r = await admin('POST', '/routes', { prefix, connector, priority });
      expect(r.status).toBe(201);
      expect(r.body).toStrictEqual({
        routeID: expect.any(Number),
        prefix,
        connector,
        priority: priority ?? 0,
        created_at: new Date(t.clock.now).toISOString(),
      });
      added.push(r.body.routeID as number);
    }
    const list = await admin('GET', '/routes');
    expect(list.status).toBe(200);
    const mine = list.body.routes.slice(before) as { prefix: string; connector: string }[];
    expect(mine.map((r) => `${r.prefix} ${r.connector}`)).toEqual([
      '+61 r-primary',
      '+44 r-primary',
      '+614 r-primary',
      '+61 r-backup',
      '+ r-backup',
    ]);
    expect(await t.store.connectors.listRoutes()).toHaveLength(before + 5);

    const removed = await admin('DELETE', `/routes/${added[0]}`);
    expect(removed.body).toEqual({ routeID: added[0], removed: true });
    expect((await admin('DELETE', `/routes/${added[0]}`)).status).toBe(404);
    expect((await admin('GET', '/routes')).body.routes).toHaveLength(before + 4);
  });

  it('validates routes: prefix, connector, priority, duplicates', async () => {
    await admin('POST', '/connectors', { name: 'v-route', ...SMSC });
    for (const [body, argument] of [
      [{ prefix: '61', connector: 'v-route' }, 'prefix'],
      [{ prefix: '+6a', connector: 'v-route' }, 'prefix'],
      [{ prefix: `+${'1'.repeat(16)}`, connector: 'v-route' }, 'prefix'],
      [{ prefix: '+61', connector: 'nobody' }, 'connector'],
      [{ prefix: '+61', connector: 'v-route', priority: 1.5 }, 'priority'],
      [{ prefix: '+61', connector: 'v-route', priority: 10_000_000 }, 'priority'],
    ] as const) {
      const r = await admin('POST', '/routes', body);
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body).toMatchObject({ type: 'VAL_ILLEGAL', arguement: argument });
    }
    expect((await admin('POST', '/routes', { connector: 'v-route' })).body).toMatchObject({
      type: 'ARG_MISSING',
      arguement: 'prefix',
    });
    expect((await admin('POST', '/routes', { prefix: '+1', connector: 'v-route' })).status).toBe(201);
    const again = await admin('POST', '/routes', { prefix: '+1', connector: 'v-route', priority: 3 });
    expect(again.status).toBe(409);
  });

  it('removing a connector removes its routes', async () => {
    await admin('POST', '/connectors', { name: 'doomed', ...SMSC });
    await admin('POST', '/connectors', { name: 'survivor', ...SMSC });
    await admin('POST', '/routes', { prefix: '+33', connector: 'doomed' });
    await admin('POST', '/routes', { prefix: '+34', connector: 'doomed' });
    await admin('POST', '/routes', { prefix: '+33', connector: 'survivor' });
    const r = await admin('DELETE', '/connectors/doomed');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: 'doomed', removed: true });
    expect((await admin('GET', '/connectors/doomed')).status).toBe(404);
    const routes = (await admin('GET', '/routes')).body.routes as { connector: string }[];
    expect(routes.some((x) => x.connector === 'doomed')).toBe(false);
    expect(routes.some((x) => x.connector === 'survivor')).toBe(true);
    // The name is free again, with no routes of its own.
    expect((await admin('POST', '/connectors', { name: 'doomed', ...SMSC })).status).toBe(201);
    const reborn = (await admin('GET', '/routes')).body.routes as { connector: string }[];
    expect(reborn.some((x) => x.connector === 'doomed')).toBe(false);
  });

  it('lists connectors in creation order', async () => {
    const r = await admin('GET', '/connectors');
    expect(r.status).toBe(200);
    const ids = (r.body.connectors as { connectorID: number }[]).map((c) => c.connectorID);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect((r.body.connectors as { name: string }[]).map((c) => c.name).slice(0, 2)).toEqual([
      'defaults',
      'Full_set-1',
    ]);
    expect(r.body.connectors.every((c: { state: unknown }) => c.state === null)).toBe(true);
  });

  it('is documented in the OpenAPI document under admin', async () => {
    const r = await call(t, 'GET', '/v1/openapi.json', undefined, null);
    expect(r.body.paths['/admin/v1/connectors'].post.tags).toEqual(['admin']);
    expect(r.body.paths['/admin/v1/routes'].get.tags).toEqual(['admin']);
    expect(r.body.paths['/admin/v1/connectors/{name}'].patch).toBeDefined();
  });
});

/** What a running SmppConnector reports (its state()), and the admin API's view of it. */
const LIVE_STATE = {
  bound: true,
  session: 'bound',
  inFlight: 3,
  throughput: 12.5,
  rateLimit: 100,
  totals: { submit_sm: 40 },
  errors: { ESME_RTHROTTLED: 2 },
  lastError: { at: Date.parse('2026-11-21T11:59:00.000Z'), kind: 'ESME_RTHROTTLED', detail: 'throttled' },
};
const LIVE_STATE_SHOWN = {
  ...LIVE_STATE,
  lastError: { at: '2026-11-21T11:59:00.000Z', kind: 'ESME_RTHROTTLED', detail: 'throttled' },
};

describe.each(ENGINES)('connector state and router reloads on %s', (engine) => {
  let t: TestApp;
  let reloads = 0;
  let app: Awaited<ReturnType<typeof buildApp>>;
  beforeAll(async () => {
    t = await createTestApp(engine);
    app = await buildApp({
      config: t.config,
      store: t.store,
      logger: pino({ level: 'silent' }),
      now: () => t.clock.now,
      connectorStates: () => Promise.resolve({ live: LIVE_STATE }),
      onRoutingChanged: () => {
        reloads += 1;
      },
    });
    checkContract(app);
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });
  const admin = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
    call({ ...t, app }, method, `/admin/v1${path}`, body, ADMIN_TOKEN);

  it('shows the live state of running connectors, null for the others', async () => {
    await admin('POST', '/connectors', { name: 'live', ...SMSC });
    await admin('POST', '/connectors', { name: 'idle', ...SMSC, enabled: false });
    expect((await admin('GET', '/connectors/live')).body.state).toEqual(LIVE_STATE_SHOWN);
    expect((await admin('GET', '/connectors/idle')).body.state).toBeNull();
    const list = (await admin('GET', '/connectors')).body.connectors as { name: string; state: unknown }[];
    expect(Object.fromEntries(list.map((c) => [c.name, c.state]))).toEqual({
      idle: null,
      live: LIVE_STATE_SHOWN,
    });
  });

  it('tells the router after every change, and not after a refused one', async () => {
    const start = reloads;
    await admin('POST', '/connectors', { name: 'counted', ...SMSC });
    await admin('PATCH', '/connectors/counted', { window: 20 });
    const route = await admin('POST', '/routes', { prefix: '+1', connector: 'counted' });
    await admin('DELETE', `/routes/${route.body.routeID}`);
    await admin('DELETE', '/connectors/counted');
    expect(reloads - start).toBe(5);
    await admin('POST', '/connectors', { name: 'live', ...SMSC });
    await admin('PATCH', '/connectors/live', { port: 0 });
    await admin('POST', '/routes', { prefix: '+1', connector: 'nobody' });
    await admin('GET', '/connectors');
    await admin('GET', '/routes');
    expect(reloads - start).toBe(5);
  });
});
