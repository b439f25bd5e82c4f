import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../helpers/process.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fetchChecked } from '../helpers/contract.js';

/**
 * What a new user does: build, start the built server with nothing but the environment,
 * copy the printed URL and key, send a message, stop it. Everything runs from dist/, in its
 * own temporary directory (so no ./.env or ./data of the checkout is involved), on an
 * ephemeral port.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'dist', 'main.js');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const run = promisify(execFile);

const MESSAGE = { to: ['+61491570156'], from: 'Acme', body: 'hi' };

interface Started {
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'smsgw-e2e-'));
  dirs.push(dir);
  return dir;
}

/** The caller's environment without any SMSGW_ setting, plus the test's own. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('SMSGW_') && name !== 'NODE_OPTIONS'),
  );
  return { ...base, ...env };
}

function start(script: string, args: string[], env: Record<string, string>, cwd: string): Started {
  const child = spawn(process.execPath, [script, ...args], {
    cwd,
    env: environment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output, exited };
}

/** Polls the output until `find` returns something, the process exits, or time runs out. */
async function waitFor<T>(started: Started, find: (stdout: string) => T | null, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  let exited = false;
  void started.exited.then(() => (exited = true));
  for (;;) {
    const found = find(started.output.stdout);
    if (found !== null) return found;
    if (exited || Date.now() > deadline) {
      throw new Error(
        `${exited ? 'process exited' : 'timed out'} before ${what}\n` +
          `stdout:\n${started.output.stdout}\nstderr:\n${started.output.stderr}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The base URL from the "listening" log line (pino JSON on stdout). */
function listeningUrl(stdout: string): string | null {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { url?: unknown };
      if (typeof entry.url === 'string') return entry.url;
    } catch {
      // a partial line; the next poll sees it whole
    }
  }
  return null;
}

const PRINTED_KEY = /^\s+(sk_[A-Za-z0-9_-]{20,})\s*$/m;

async function startServer(env: Record<string, string>) {
  const started = start(MAIN, [], { SMSGW_PORT: '0', ...env }, tempDir());
  const url = await waitFor(started, listeningUrl, 'the listening log line');
  return { ...started, url };
}

function post(url: string, key: string, body: unknown) {
  return fetchChecked(`${url}/sms/message`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function stop(started: Started): Promise<{ code: number | null; ms: number }> {
  const began = Date.now();
  started.child.kill('SIGTERM');
  const { code } = await started.exited;
  return { code, ms: Date.now() - began };
}

function sqliteUrl(): string {
  return `sqlite:${join(tempDir(), 'smsgw.sqlite')}`;
}

beforeAll(async () => {
  try {
    await run('npm', ['run', 'build'], { cwd: ROOT, timeout: 240_000 });
  } catch (error) {
    // tsc reports on stdout; without it the failure would say only "Command failed".
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm run build failed:\n${stdout}${stderr}`, { cause: error });
  }
}, 300_000);

afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('npm start on an empty store', () => {
  it('prints the URL with the real port and a key that works, and stops on SIGTERM', async () => {
    const server = await startServer({ SMSGW_DATABASE_URL: sqliteUrl() });
    const port = /^http:\/\/localhost:(\d+)\/v1$/.exec(server.url)?.[1];
    expect(port, server.url).toBeDefined();
    expect(Number(port)).toBeGreaterThan(0);

    const key = await waitFor(server, (stdout) => PRINTED_KEY.exec(stdout)?.[1] ?? null, 'the API key');
    const response = await post(server.url, key, MESSAGE);
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ num_parts: 1, num_recipients: 1 });

    // The web console built by npm run build, where the printed message points.
    const consoleUrl = server.url.replace(/\/v1$/, '/console/');
    expect(server.output.stdout).toContain(`Sign in to the web console at ${consoleUrl}`);
    const page = await fetch(consoleUrl);
    expect(page.status).toBe(200);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(new URL(script!, consoleUrl));
    expect(asset.status).toBe(200);
    // Read to the end: an unread body keeps its connection busy, and the stop below would then
    // wait out the shutdown grace period (5 s) for it.
    await asset.arrayBuffer();

    const { code, ms } = await stop(server);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
  });

  it('uses SMSGW_BOOTSTRAP_KEY as the key and prints no other', async () => {
    const server = await startServer({ SMSGW_DATABASE_URL: sqliteUrl(), SMSGW_BOOTSTRAP_KEY: 'my-test-key' });
    const response = await post(server.url, 'my-test-key', MESSAGE);
    expect(response.status).toBe(201);
    const wrong = await post(server.url, 'not-the-key', MESSAGE);
    expect(wrong.status).toBe(401);

    expect((await stop(server)).code).toBe(0);
    expect(server.output.stdout).not.toMatch(PRINTED_KEY);
    expect(server.output.stdout).not.toContain('shown once');
  });
});

describe('a bad configuration value', () => {
  it('exits non-zero and names the variable', async () => {
    const started = start(MAIN, [], { SMSGW_PORT: 'abc', SMSGW_DATABASE_URL: sqliteUrl() }, tempDir());
    const { code } = await started.exited;
    expect(code).not.toBe(0);
    expect(started.output.stderr).toContain('SMSGW_PORT');
  });
});

describe('the smsgw CLI', () => {
  it('lists its commands with --help', async () => {
    const { stdout } = await run(process.execPath, [CLI, '--help'], { env: environment({}) });
    for (const command of ['serve', 'accounts create', 'keys create', 'senders add', 'numbers add']) {
      expect(stdout).toContain(command);
    }
  });

  it('creates an account whose key authenticates against a server on the same store', async () => {
    const database = sqliteUrl();
    const { stdout } = await run(
      process.execPath,
      // --create: the database file does not exist yet, and a CLI command makes none unasked.
      [CLI, 'accounts', 'create', '--create', '--name', 'shop', '--credits', '10'],
      {
        cwd: tempDir(),
        env: environment({ SMSGW_DATABASE_URL: database }),
      },
    );
    const created = JSON.parse(stdout) as { api_key?: unknown; name?: unknown };
    expect(created.name).toBe('shop');
    expect(created.api_key).toEqual(expect.any(String));
    const key = created.api_key as string;

    // The store is not empty, so no bootstrap account (and no key) is made this time.
    const server = await startServer({ SMSGW_DATABASE_URL: database });
    const list = await fetchChecked(`${server.url}/sms/messages`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ data: [], more_results: false });
    const anonymous = await fetchChecked(`${server.url}/sms/messages`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(anonymous.status).toBe(401);

    expect((await stop(server)).code).toBe(0);
    expect(server.output.stdout).not.toMatch(PRINTED_KEY);
  });
});

describe('a closed stdout', () => {
  it('neither stops nor hangs the server (EPIPE), and SIGTERM still ends it cleanly', async () => {
    const port = await freePort();
    // The reader of stdout is gone before the server writes anything: the first-start key it
    // prints and every log line after go into a broken pipe.
    const started = start(MAIN, [], { SMSGW_PORT: String(port), SMSGW_DATABASE_URL: sqliteUrl() }, tempDir());
    started.child.stdout!.destroy();
    const base = `http://127.0.0.1:${port}`;
    for (let ready = false; !ready;) {
      if (started.child.exitCode !== null) throw new Error(`server exited: ${started.output.stderr}`);
      ready = await fetch(`${base}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (let i = 0; i < 50; i++) {
      const response = await fetch(`${base}/v1/sms/messages`, { headers: { authorization: 'Bearer wrong' } });
      expect(response.status).toBe(401);
    }
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(started.child.exitCode).toBeNull();
    expect((await stop(started)).code).toBe(0);
  });
});

describe('the npm package', () => {
  it('holds dist/ and a smsgw bin that works from an empty folder', async () => {
    const packed = tempDir();
    // Built by beforeAll; --ignore-scripts keeps `prepare` from building it again.
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', packed],
      {
        cwd: ROOT,
        env: environment({}),
      },
    );
    const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    const files = info!.files.map((f) => f.path);
    expect(files).toContain('dist/main.js');
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('package.json');
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/'))).toBe(false);

    const folder = tempDir();
    // Scripts stay off: better-sqlite3's would compile SQLite (minutes, and a compiler), and
    // --help needs no database. Dependencies come from npm's cache where it has them.
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        join(packed, info!.filename),
      ],
      { cwd: folder, env: environment({}), timeout: 240_000 },
    );
    for (const args of [['--help'], ['accounts', 'create', '--help'], ['serve', '--help']]) {
      const help = await run('npx', ['--no-install', 'smsgw', ...args], {
        cwd: folder,
        env: environment({}),
      });
      expect(help.stdout, args.join(' ')).toMatch(/smsgw/);
    }
    expect(existsSync(join(folder, 'data'))).toBe(false);
  }, 300_000);
});
