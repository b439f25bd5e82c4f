import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { runCli } from '../../src/cli/main.js';

/** Issue 16 item 9: every command answers --help without side effects; no silent new database. */
describe('the smsgw CLI', () => {
  let dir: string;
  let stdout: string[];
  let stderr: string[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'smsgw-cli-'));
    stdout = [];
    stderr = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      stdout.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      stderr.push(String(chunk));
      return true;
    });
    vi.stubEnv('SMSGW_LOG_LEVEL', 'silent');
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });
  const database = () => join(dir, 'store', 'smsgw.sqlite');

  it.each([...Object.keys(COMMANDS), 'serve', 'start', 'smsc-sim'])(
    '"%s --help" prints its usage and touches nothing',
    async (name) => {
      vi.stubEnv('SMSGW_DATABASE_URL', `sqlite:${database()}`);
      expect(await runCli([...name.split(' '), '--help'])).toBe(0);
      expect(stdout.join('')).toMatch(/Usage: smsgw /);
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('refuses a database file that does not exist, naming it and the way out', async () => {
    vi.stubEnv('SMSGW_DATABASE_URL', `sqlite:${database()}`);
    expect(await runCli(['accounts', 'list'])).toBe(1);
    expect(stderr.join('')).toContain(`there is no database at ${database()}`);
    expect(stderr.join('')).toContain('smsgw migrate');
    expect(existsSync(database())).toBe(false);
    expect(await runCli(['webhooks', 'list'])).toBe(1);
    expect(existsSync(join(dir, 'store'))).toBe(false);
  });

  it('creates the database with --create, or with migrate', async () => {
    vi.stubEnv('SMSGW_DATABASE_URL', `sqlite:${database()}`);
    expect(await runCli(['accounts', 'create', '--create', '--name', 'first'])).toBe(0);
    expect(JSON.parse(stdout.join(''))).toMatchObject({ name: 'first' });
    expect(existsSync(database())).toBe(true);
    stdout.length = 0;
    // Once it exists, no flag is needed.
    expect(await runCli(['accounts', 'list'])).toBe(0);
    expect(JSON.parse(stdout.join('')).accounts).toHaveLength(1);

    const other = join(dir, 'other.sqlite');
    vi.stubEnv('SMSGW_DATABASE_URL', `sqlite:${other}`);
    expect(await runCli(['migrate'])).toBe(0);
    expect(existsSync(other)).toBe(true);
  });
});
