import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { UsageError } from '../../src/cli/context.js';
import { loadConfig } from '../../src/config/config.js';
import { AlreadyExistsError } from '../../src/domain/errors.js';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { printedBy } from '../helpers/cli.js';

/** decisions §13 (account rate settings) and §16 (listing accounts, taken names), API and CLI. */
describe.each(ENGINES)('accounts in the admin API and CLI on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => t.close());
  const admin = (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) =>
    call(t, method, `/admin/v1${path}`, body, ADMIN_TOKEN);

  const run = async (name: string, argv: string[]) => {
    const output = await printedBy(() =>
      COMMANDS[name]!.run(argv, loadConfig({ SMSGW_DATABASE_URL: t.db.url, SMSGW_LOG_LEVEL: 'silent' })),
    );
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
    return JSON.parse(output) as any;
  };

  it('keeps rate_limit and send_rate, null meaning unlimited', async () => {
    const created = await admin('POST', '/accounts', { name: 'rates', rate_limit: 50, send_rate: 200 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ rate_limit: 50, send_rate: 200 });
    const id = created.body.accountID;
    expect((await admin('GET', `/accounts/${id}`)).body).toMatchObject({ rate_limit: 50, send_rate: 200 });
    const patched = await admin('PATCH', `/accounts/${id}`, { rate_limit: null, send_rate: 10 });
    expect(patched.body).toMatchObject({ rate_limit: null, send_rate: 10 });
    expect((await admin('POST', '/accounts', { name: 'plain' })).body).toMatchObject({
      rate_limit: null,
      send_rate: null,
    });
  });

  it('refuses a rate that is not a whole number of at least 1', async () => {
    for (const [field, value] of [
      ['rate_limit', 0],
      ['rate_limit', 1.5],
      ['send_rate', -3],
      ['send_rate', '10'],
    ] as const) {
      const r = await admin('POST', '/accounts', { name: `bad-${field}-${String(value)}`, [field]: value });
      expect(r.status, `${field}=${String(value)}`).toBe(403);
      expect(r.body).toMatchObject({
        status_code: 403,
        type: 'VAL_ILLEGAL',
        arguement: field,
        bad_value: value,
      });
    }
  });

  it('lists accounts by id, paged, with more_results', async () => {
    const names = ['list-a', 'list-b', 'list-c'];
    for (const name of names) await admin('POST', '/accounts', { name });
    const all = await admin('GET', '/accounts?limit=500');
    expect(all.status).toBe(200);
    expect(all.body.more_results).toBe(false);
    const ids = all.body.accounts.map((a: { accountID: number }) => a.accountID);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(all.body.accounts.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining(names));
    // No key is ever listed; the webhook secret is the operator's to read, as in GET /accounts/{id}.
    expect(all.body.accounts[0]).not.toHaveProperty('api_key');

    const page = await admin('GET', '/accounts?limit=2&offset=1');
    expect(page.body.accounts.map((a: { accountID: number }) => a.accountID)).toEqual(ids.slice(1, 3));
    expect(page.body.more_results).toBe(ids.length > 3);
    const last = await admin('GET', `/accounts?limit=2&offset=${ids.length - 1}`);
    expect(last.body).toMatchObject({ more_results: false });
    expect(last.body.accounts).toHaveLength(1);
  });

  it('answers a malformed limit or offset with the 400 body', async () => {
    for (const query of ['limit=501', 'limit=x', 'offset=-1', 'limit=1&limit=2']) {
      const r = await admin('GET', `/accounts?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body).toMatchObject({ status_code: 400, status_msg: 'Bad Request', type: 'VAL_ILLEGAL' });
    }
  });

  it('answers 409 in the seed body for a taken name, on creation and on rename', async () => {
    const a = await admin('POST', '/accounts', { name: 'taken-a' });
    const b = await admin('POST', '/accounts', { name: 'taken-b' });
    const again = await admin('POST', '/accounts', { name: 'taken-a' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ status_code: 409, status_msg: 'Conflict', info: expect.any(String) });
    const rename = await admin('PATCH', `/accounts/${b.body.accountID}`, { name: 'taken-a' });
    expect(rename.status).toBe(409);
    expect(rename.body).toEqual({ status_code: 409, status_msg: 'Conflict', info: expect.any(String) });
    expect((await admin('GET', `/accounts/${b.body.accountID}`)).body.name).toBe('taken-b');
    const ok = await admin('PATCH', `/accounts/${a.body.accountID}`, { name: 'renamed-a' });
    expect(ok.body.name).toBe('renamed-a');
  });

  it('creates one account when two ask for the same name at once; the other gets 409', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => admin('POST', '/accounts', { name: 'race' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it('has CLI twins: list, rate settings, rename, and a taken name refused', async () => {
    const created = await run('accounts create', [
      '--name',
      'cli-rates',
      '--rate-limit',
      '20',
      '--send-rate',
      '5',
    ]);
    expect(created).toMatchObject({ name: 'cli-rates', rate_limit: 20, send_rate: 5 });
    const updated = await run('accounts update', [
      String(created.accountID),
      '--name',
      'cli-renamed',
      '--rate-limit',
      'unlimited',
    ]);
    expect(updated).toMatchObject({ name: 'cli-renamed', rate_limit: null, send_rate: 5 });
    const listed = await run('accounts list', ['--limit', '500']);
    expect(listed.accounts.map((a: { name: string }) => a.name)).toContain('cli-renamed');
    expect(listed.more_results).toBe(false);

    await expect(run('accounts create', ['--name', 'cli-renamed'])).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    await expect(
      run('accounts update', [String(created.accountID), '--rate-limit', 'fast']),
    ).rejects.toBeInstanceOf(UsageError);
    await expect(run('accounts list', ['--limit', '9999'])).rejects.toBeInstanceOf(UsageError);
  });
});
