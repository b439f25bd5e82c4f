import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useCliSandbox } from '../helpers/cli.js';
import { IMPORT_BATCH } from '../../src/app/import-suppressions.js';
import { runCli } from '../../src/cli/main.js';

describe('smsgw suppressions (decisions §17, CLI twin)', () => {
  const cli = useCliSandbox();
  beforeEach(() => {
    vi.stubEnv('SMSGW_DATABASE_URL', `sqlite:${join(cli.dir, 'smsgw.sqlite')}`);
  });
  const run = async (...argv: string[]) => {
    cli.stdout.length = 0;
    const code = await runCli(argv);
    return { code, json: code === 0 ? JSON.parse(cli.stdout.join('')) : null };
  };

  it('adds, lists and removes, as the API does', async () => {
    const account = (await run('accounts', 'create', '--create', '--name', 'shop')).json.accountID;
    expect(
      (await run('suppressions', 'add', '--account', String(account), '61491570156')).json,
    ).toMatchObject({
      msisdn: '+61491570156',
      reason: 'manual',
    });
    expect((await run('suppressions', 'list', '--account', String(account))).json.suppressions).toHaveLength(
      1,
    );
    expect((await run('suppressions', 'remove', '--account', String(account), '+61491570156')).code).toBe(0);
    expect((await run('suppressions', 'remove', '--account', String(account), '+61491570156')).code).toBe(1);
    expect(cli.stderr.join('')).toContain('not on the suppression list');
    expect((await run('suppressions', 'add', '--account', String(account), 'nope')).code).toBe(1);
  });

  it('imports a CSV in batches with progress, skipping what is not a number', async () => {
    const account = (await run('accounts', 'create', '--create', '--name', 'shop')).json.accountID;
    const numbers = Array.from(
      { length: IMPORT_BATCH + 5 },
      (_, i) => `"+1${2_000_000_000 + i}",old,2020-01-01`,
    );
    const file = join(cli.dir, 'list.csv');
    writeFileSync(file, ['msisdn,reason,date', ...numbers, '', 'not-a-number', '61491570156'].join('\r\n'));
    const imported = await run('suppressions', 'import', '--account', String(account), file);
    expect(imported.json).toMatchObject({ lines: IMPORT_BATCH + 9, numbers: IMPORT_BATCH + 6, skipped: 2 });
    expect(cli.stderr.join('').trim().split('\n')).toEqual([
      `imported ${IMPORT_BATCH} numbers (${IMPORT_BATCH + 1} lines read, 1 skipped)`,
      `imported ${IMPORT_BATCH + 6} numbers (${IMPORT_BATCH + 9} lines read, 2 skipped)`,
    ]);
    const page = (await run('suppressions', 'list', '--account', String(account), '--limit', '500')).json;
    expect(page.suppressions[0]).toMatchObject({ msisdn: '+12000000000', reason: 'import' });
    expect(page.more_results).toBe(true);
  });
});
