import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { useCliSandbox } from '../helpers/cli.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { runCli } from '../../src/cli/main.js';

/** Issue 16 item 9: every command answers --help without side effects; no silent new database. */
describe('the smsgw CLI', () => {
  const cli = useCliSandbox();
  const database = () => join(cli.dir, 'store', 'smsgw.sqlite');

  it.each([...Object.keys(COMMANDS), 'serve', 'start', 'smsc-sim'])(
    '"%s --help" prints its usage and touches nothing',
    async (name) => {
      vi.stubEnv('SMSGW_DATABASE_URL', `sqlite:${database()}`);
      expect(await runCli([...name.split(' '), '--help'])).toBe(0);
      expect(cli.stdout.join('')).toMatch(/Usage: smsgw /);
      expect(readdirSync(cli.dir)).toEqual([]);
    },
  );

  it('refuses a database file that does not exist, naming it and the way out', async () => {
    vi.stubEnv('SMSGW_DATABASE_URL', `sqlite:${database()}`);
    expect(await runCli(['accounts', 'list'])).toBe(1);
    expect(cli.stderr.join('')).toContain(`there is no database at ${database()}`);
    expect(cli.stderr.join('')).toContain('smsgw migrate');
    expect(existsSync(database())).toBe(false);
    expect(await runCli(['webhooks', 'list'])).toBe(1);
    expect(existsSync(join(cli.dir, 'store'))).toBe(false);
  });

  it('creates the database with --create, or with migrate', async () => {
    vi.stubEnv('SMSGW_DATABASE_URL', `sqlite:${database()}`);
    expect(await runCli(['accounts', 'create', '--create', '--name', 'first'])).toBe(0);
    expect(JSON.parse(cli.stdout.join(''))).toMatchObject({ name: 'first' });
    expect(existsSync(database())).toBe(true);
    cli.stdout.length = 0;
    // Once it exists, no flag is needed.
    expect(await runCli(['accounts', 'list'])).toBe(0);
    expect(JSON.parse(cli.stdout.join('')).accounts).toHaveLength(1);

    const other = join(cli.dir, 'other.sqlite');
    vi.stubEnv('SMSGW_DATABASE_URL', `sqlite:${other}`);
    expect(await runCli(['migrate'])).toBe(0);
    expect(existsSync(other)).toBe(true);
  });
});
