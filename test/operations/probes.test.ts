import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lifecycle } from '../../src/app/readiness.js';
import { loadConfig } from '../../src/config/config.js';
import { buildApp, type App } from '../../src/http/app.js';
import { connectPostgres } from '../../src/store/postgres/connect.js';
import { createStore } from '../../src/store/store.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/engines.js';

/** GET /healthz and GET /readyz (decisions §12). */
describe.each(ENGINES)('health and readiness probes on %s', (engine) => {
  let db: TestDatabase;
  const state = { engine: 'ok', stopping: false };
  const lifecycle: Lifecycle = { engine: () => state.engine, stopping: () => state.stopping };
  let app: App;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    app = await buildApp({
      config: loadConfig({ SMSGW_LOG_LEVEL: 'silent' }),
      store: createStore(db.conn),
      logger: pino({ level: 'silent' }),
      now: () => Date.now(),
      lifecycle,
    });
  });
  afterAll(async () => {
    await app.close();
    await db.drop();
  });
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    return { status: r.statusCode, body: r.json() as unknown };
  };

  it('healthz answers while the process serves, with no key', async () => {
    expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('readyz is 200 with every check when the database, migrations and engine are fine', async () => {
    expect(await get('/readyz')).toEqual({
      status: 200,
      body: { status: 'ready', checks: { database: 'ok', migrations: 'ok', engine: 'ok' } },
    });
  });

  it('readyz is 503 with the reason while the engine starts or after it failed', async () => {
    for (const why of ['starting', 'failed']) {
      state.engine = why;
      expect(await get('/readyz')).toEqual({
        status: 503,
        body: { status: 'not_ready', checks: { database: 'ok', migrations: 'ok', engine: why } },
      });
    }
    state.engine = 'ok';
  });

  it('readyz is 503 from the moment a shutdown starts', async () => {
    state.stopping = true;
    expect(await get('/readyz')).toEqual({
      status: 503,
      body: { status: 'not_ready', checks: { database: 'ok', migrations: 'ok', engine: 'shutting down' } },
    });
    state.stopping = false;
  });

  it('readyz is 503 when a migration is missing from the store', async () => {
    const last = await db.conn.db
      .selectFrom('smsgw_migrations')
      .selectAll()
      .orderBy('version', 'desc')
      .executeTakeFirstOrThrow();
    await db.conn.db.deleteFrom('smsgw_migrations').where('version', '=', last.version).execute();
    try {
      expect(await get('/readyz')).toMatchObject({
        status: 503,
        body: { status: 'not_ready', checks: { database: 'ok', migrations: 'pending' } },
      });
    } finally {
      await db.conn.db.insertInto('smsgw_migrations').values(last).execute();
    }
    expect((await get('/readyz')).status).toBe(200);
  });

  it('answers OPTIONS and 405 like every other path', async () => {
    const options = await app.inject({ method: 'OPTIONS', url: '/readyz' });
    expect(options.json()).toEqual(['GET', 'OPTIONS']);
    const post = await app.inject({ method: 'POST', url: '/healthz' });
    expect(post.statusCode).toBe(405);
    expect(post.json()).toEqual({
      status_code: 405,
      status_msg: 'Method Not Allowed',
      Allow: ['GET', 'OPTIONS'],
    });
  });
});

describe('readiness when the database does not answer', () => {
  it('is 503 with the database unreachable, and says nothing more', async () => {
    // Nothing listens on port 1: every connection is refused.
    const conn = connectPostgres('postgres://postgres@127.0.0.1:1/test');
    const app = await buildApp({
      config: loadConfig({ SMSGW_LOG_LEVEL: 'silent' }),
      store: createStore(conn),
      logger: pino({ level: 'silent' }),
      now: () => Date.now(),
      lifecycle: { engine: () => 'ok', stopping: () => false },
    });
    try {
      const r = await app.inject({ method: 'GET', url: '/readyz' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toEqual({
        status: 'not_ready',
        checks: { database: 'unreachable', migrations: 'unknown', engine: 'ok' },
      });
      // Liveness does not depend on the database.
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await conn.close();
    }
  });
});
