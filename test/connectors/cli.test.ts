import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { UsageError } from '../../src/cli/context.js';
import { loadConfig } from '../../src/config/config.js';
import { NotFoundError, ValidationError } from '../../src/domain/errors.js';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { printedBy } from '../helpers/cli.js';

const REQUIRED = ['--host', 'smsc.example.net', '--port', '2775', '--system-id', 'smsgw', '--password', 'pw'];

describe.each(ENGINES)('smsgw connectors and routes on %s', (engine) => {
  let t: TestApp;
  let output = '';
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => t.close());

  /** Runs `smsgw <name> …argv` against the test database (no server), returning what it printed. */
  const run = async (name: string, argv: string[]) => {
    const command = COMMANDS[name];
    if (!command) throw new Error(`no command ${name}`);
    output = await printedBy(() =>
      command.run(argv, loadConfig({ SMSGW_DATABASE_URL: t.db.url, SMSGW_LOG_LEVEL: 'silent' })),
    );
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
    return JSON.parse(output) as any;
  };

  it('lists every command with a usage line', () => {
    for (const name of [
      'connectors add',
      'connectors list',
      'connectors update',
      'connectors remove',
      'routes add',
      'routes list',
      'routes remove',
    ]) {
      expect(COMMANDS[name]?.usage).toContain(`smsgw ${name}`);
    }
  });

  it('adds a connector with defaults, printed without its password', async () => {
    const printed = await run('connectors add', ['--name', 'cli-default', ...REQUIRED]);
    expect(printed).toMatchObject({
      name: 'cli-default',
      host: 'smsc.example.net',
      port: 2775,
      system_id: 'smsgw',
      password_set: true,
      bind_mode: 'transceiver',
      tls: false,
      window: 10,
      throughput: 0,
      source_ton: null,
      dest_ton: 1,
      default_data_coding: 0,
      concatenation: 'udh8',
      request_receipts: true,
      enabled: true,
      max_binds: 1,
    });
    expect(printed.password).toBeUndefined();
    expect(printed.state).toBeUndefined();
    expect(output).not.toContain('"pw"');
    // The API reads what the CLI wrote.
    const read = await call(t, 'GET', '/admin/v1/connectors/cli-default', undefined, ADMIN_TOKEN);
    expect(read.body).toMatchObject({ name: 'cli-default', port: 2775 });
  });

  it('adds a connector with every option', async () => {
    const printed = await run('connectors add', [
      '--name',
      'cli-full',
      ...REQUIRED,
      '--system-type',
      'VMA',
      '--bind-mode',
      'transmitter_receiver',
      '--tls',
      '--window',
      '25',
      '--throughput',
      '50',
      '--source-ton',
      '5',
      '--source-npi',
      '0',
      '--dest-ton',
      '0',
      '--dest-npi',
      '9',
      '--data-coding',
      '3',
      '--concatenation',
      'sar',
      '--no-receipts',
      '--disabled',
    ]);
    expect(printed).toMatchObject({
      system_type: 'VMA',
      bind_mode: 'transmitter_receiver',
      tls: true,
      window: 25,
      throughput: 50,
      source_ton: 5,
      source_npi: 0,
      dest_ton: 0,
      dest_npi: 9,
      default_data_coding: 3,
      concatenation: 'sar',
      request_receipts: false,
      enabled: false,
    });
  });

  it('refuses bad usage and bad values, writing nothing', async () => {
    await expect(run('connectors add', ['--name', 'cli-bad', '--host', 'h'])).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(
      run('connectors add', ['--name', 'cli-bad', ...REQUIRED, '--port', 'x']),
    ).rejects.toBeInstanceOf(UsageError);
    await expect(
      run('connectors add', ['--name', 'cli-bad', ...REQUIRED, '--colour', 'red']),
    ).rejects.toBeInstanceOf(UsageError);
    await expect(
      run('connectors add', ['--name', 'cli-bad', ...REQUIRED, '--tls', '--no-tls']),
    ).rejects.toBeInstanceOf(UsageError);
    const illegal = run('connectors add', ['--name', 'cli-bad', ...REQUIRED, '--window', '0']);
    await expect(illegal).rejects.toBeInstanceOf(ValidationError);
    await expect(illegal).rejects.toMatchObject({ detail: { argument: 'window', badValue: 0 } });
    await expect(
      run('connectors add', ['--name', 'cli-bad', ...REQUIRED, '--bind-mode', 'receiver']),
    ).rejects.toMatchObject({ detail: { argument: 'bind_mode' } });
    await expect(run('connectors add', ['--name', 'bad name', ...REQUIRED])).rejects.toMatchObject({
      detail: { argument: 'name' },
    });
    expect(await t.store.connectors.get('cli-bad')).toBeNull();
    await expect(run('connectors add', ['--name', 'cli-default', ...REQUIRED])).rejects.toBeInstanceOf(
      UsageError,
    );
  });

  it('updates only the options given; none clears the sender TON/NPI', async () => {
    await run('connectors add', ['--name', 'cli-update', ...REQUIRED, '--source-ton', '5', '--tls']);
    const printed = await run('connectors update', [
      'cli-update',
      '--port',
      '2776',
      '--password',
      'newpw',
      '--source-ton',
      'none',
      '--no-tls',
      '--disabled',
    ]);
    expect(printed).toMatchObject({
      name: 'cli-update',
      host: 'smsc.example.net',
      port: 2776,
      source_ton: null,
      tls: false,
      enabled: false,
    });
    expect((await t.store.connectors.get('cli-update'))?.password).toBe('newpw');
    expect(
      await run('connectors update', ['cli-update', '--enabled', '--receipts', '--max-binds', '2']),
    ).toMatchObject({
      enabled: true,
      request_receipts: true,
      max_binds: 2,
      port: 2776,
    });
    await expect(run('connectors update', ['nobody', '--port', '1'])).rejects.toBeInstanceOf(NotFoundError);
    await expect(run('connectors update', [])).rejects.toBeInstanceOf(UsageError);
    await expect(run('connectors update', ['cli-update', '--dest-npi', '19'])).rejects.toMatchObject({
      detail: { argument: 'dest_npi' },
    });
  });

  it('lists connectors without passwords', async () => {
    const printed = await run('connectors list', []);
    const names = (printed.connectors as { name: string }[]).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['cli-default', 'cli-full', 'cli-update']));
    expect(output).not.toContain('"password"');
  });

  it('adds, lists and removes routes; ties go by creation order', async () => {
    await run('connectors add', ['--name', 'cli-a', ...REQUIRED]);
    await run('connectors add', ['--name', 'cli-b', ...REQUIRED]);
    const first = await run('routes add', ['--prefix', '+61', '--connector', 'cli-b']);
    expect(first).toMatchObject({
      routeID: expect.any(Number),
      prefix: '+61',
      connector: 'cli-b',
      priority: 0,
    });
    await run('routes add', ['--prefix', '+61', '--connector', 'cli-a']);
    await run('routes add', ['--prefix', '+', '--connector', 'cli-a', '--priority=-1']);
    await run('routes add', ['--prefix', '+6149', '--connector', 'cli-a', '--priority', '2']);
    const listed = await run('routes list', []);
    expect(
      (listed.routes as { prefix: string; connector: string }[]).map((r) => `${r.prefix} ${r.connector}`),
    ).toEqual(['+ cli-a', '+61 cli-b', '+61 cli-a', '+6149 cli-a']);

    await expect(run('routes add', ['--prefix', '+61', '--connector', 'cli-a'])).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(run('routes add', ['--prefix', '61', '--connector', 'cli-a'])).rejects.toMatchObject({
      detail: { argument: 'prefix' },
    });
    await expect(run('routes add', ['--prefix', '+61', '--connector', 'nobody'])).rejects.toMatchObject({
      detail: { argument: 'connector' },
    });
    await expect(run('routes add', ['--connector', 'cli-a'])).rejects.toBeInstanceOf(UsageError);

    expect(await run('routes remove', [String(first.routeID)])).toEqual({
      routeID: first.routeID,
      removed: true,
    });
    await expect(run('routes remove', [String(first.routeID)])).rejects.toBeInstanceOf(NotFoundError);
    await expect(run('routes remove', ['abc'])).rejects.toBeInstanceOf(UsageError);
    expect((await run('routes list', [])).routes).toHaveLength(3);
  });

  it('removes a connector with its routes', async () => {
    expect(await run('connectors remove', ['cli-a'])).toEqual({ name: 'cli-a', removed: true });
    expect((await run('routes list', [])).routes).toEqual([]);
    expect(await t.store.connectors.get('cli-a')).toBeNull();
    await expect(run('connectors remove', ['cli-a'])).rejects.toBeInstanceOf(NotFoundError);
    await expect(run('connectors remove', [])).rejects.toBeInstanceOf(UsageError);
  });
});
