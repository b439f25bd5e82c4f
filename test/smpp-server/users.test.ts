import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/config/config.js';
import { verifySmppPassword } from '../../src/app/smpp-users.js';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

/** decisions §21: SMPP credentials through the admin API and the CLI. */
describe.each(ENGINES)('SMPP users on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());
  const admin = (method: 'PUT' | 'DELETE', path: string, body?: unknown) =>
    call(t, method, `/admin/v1${path}`, body, ADMIN_TOKEN);

  it('sets credentials with defaults, keeps only a hash, and removes them', async () => {
    const id = t.account.id;
    const put = await admin('PUT', `/accounts/${id}/smpp`, { system_id: 'shop', password: 'secret1' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ accountID: id, system_id: 'shop', max_binds: 4, window: 10 });
    expect(put.body).not.toHaveProperty('password');
    const user = await t.store.smpp.users.findBySystemId('shop');
    expect(user?.passwordHash).not.toContain('secret1');
    expect(await verifySmppPassword('secret1', user!.passwordHash)).toBe(true);
    expect(await verifySmppPassword('secret2', user!.passwordHash)).toBe(false);

    const again = await admin('PUT', `/accounts/${id}/smpp`, {
      system_id: 'shop2',
      password: 'pw',
      max_binds: 2,
      window: 50,
    });
    expect(again.body).toMatchObject({ system_id: 'shop2', max_binds: 2, window: 50 });
    expect(await t.store.smpp.users.findBySystemId('shop')).toBeNull();

    expect((await admin('DELETE', `/accounts/${id}/smpp`)).body).toEqual({ accountID: id, removed: true });
    expect((await admin('DELETE', `/accounts/${id}/smpp`)).status).toBe(404);
    expect(await t.store.smpp.users.get(id)).toBeNull();
  });

  it('refuses what SMPP 3.4 cannot carry with the seed validation body', async () => {
    const id = t.account.id;
    for (const [body, argument] of [
      [{ system_id: 'a'.repeat(16), password: 'pw' }, 'system_id'],
      [{ system_id: 'ok', password: '123456789' }, 'password'],
      [{ system_id: 'ok', password: 'pw', window: 0 }, 'window'],
    ] as const) {
      const r = await admin('PUT', `/accounts/${id}/smpp`, body);
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body).toMatchObject({ status_code: 403, type: 'VAL_ILLEGAL', arguement: argument });
    }
    const missing = await admin('PUT', `/accounts/${id}/smpp`, { system_id: 'ok' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ type: 'ARG_MISSING', arguement: 'password' });
    expect((await admin('PUT', '/accounts/999999/smpp', { system_id: 'x', password: 'y' })).status).toBe(404);
    expect(
      (await call(t, 'PUT', `/admin/v1/accounts/${id}/smpp`, { system_id: 'x', password: 'y' })).status,
    ).toBe(401);
  });

  it('gives a system_id to one account only: 409', async () => {
    const other = await t.newAccount();
    expect(
      (await admin('PUT', `/accounts/${t.account.id}/smpp`, { system_id: 'mine', password: 'a' })).status,
    ).toBe(200);
    const taken = await admin('PUT', `/accounts/${other.account.id}/smpp`, {
      system_id: 'mine',
      password: 'b',
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ status_code: 409, status_msg: 'Conflict' });
  });

  it('has a CLI twin: smpp-users set | remove', async () => {
    const { account } = await t.newAccount();
    const config = loadConfig({ SMSGW_DATABASE_URL: t.db.url, SMSGW_LOG_LEVEL: 'silent' });
    const output: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      output.push(String(chunk));
      return true;
    });
    try {
      await COMMANDS['smpp-users set']!.run(
        ['--account', String(account.id), '--system-id', 'cli', '--password', 'pw', '--window', '3'],
        config,
      );
      await expect(
        COMMANDS['smpp-users set']!.run(
          ['--account', String(account.id), '--system-id', 'cli', '--password', 'waytoolong'],
          config,
        ),
      ).rejects.toThrow(/password/);
      await COMMANDS['smpp-users remove']!.run(['--account', String(account.id)], config);
    } finally {
      spy.mockRestore();
    }
    expect(JSON.parse(output[0]!)).toMatchObject({ accountID: account.id, system_id: 'cli', window: 3 });
    expect(JSON.parse(output[1]!)).toEqual({ accountID: account.id, removed: true });
    expect(await t.store.smpp.users.get(account.id)).toBeNull();
  });
});
