import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildConsole } from '../../console/build.js';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';

export const ADMIN = 'console-admin-token';
export const KEY = 'console-test-key';

export interface ConsoleServer {
  readonly server: RunningServer;
  /** http://localhost:PORT */
  readonly origin: string;
  readonly console: string;
  stop(): Promise<void>;
}

/**
 * The real server (engine thread, simulated carrier or SMPP, webhook runner) on an ephemeral
 * port and a fresh SQLite file, serving a console built for this run into a folder of its own.
 */
export async function startConsoleServer(env: Record<string, string> = {}): Promise<ConsoleServer> {
  const dir = mkdtempSync(join(tmpdir(), 'smsgw-console-'));
  const consoleDir = join(dir, 'console');
  await buildConsole(consoleDir);
  const config = loadConfig({
    SMSGW_PORT: '0',
    SMSGW_DATABASE_URL: `sqlite:${join(dir, 'smsgw.sqlite')}`,
    SMSGW_ADMIN_TOKEN: ADMIN,
    SMSGW_BOOTSTRAP_KEY: KEY,
    SMSGW_SIM_DELAY_MS: '50',
    SMSGW_LOG_LEVEL: 'silent',
    ...env,
  });
  const server = await startServer(config, pino({ level: 'silent' }), { consoleDir });
  const origin = server.baseUrl.replace(/\/v1$/, '');
  return {
    server,
    origin,
    console: `${origin}/console/`,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A call to the server's API with a key or the admin token. */
export async function api<T = Record<string, unknown>>(
  origin: string,
  secret: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const r = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await r.json()) as T;
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}
