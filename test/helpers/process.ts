import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { fetchChecked } from './contract.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A free TCP port on loopback, for a server that must come back on the same address. */
export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => ok(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `src/main.ts` as a real server process and waits until it answers. */
export async function startServerProcess(env: Record<string, string>, port: number): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, SMSGW_LOG_LEVEL: 'warn', ...env, SMSGW_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) =>
    child.once('exit', (code, signal) => ok({ code, signal })),
  );
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    try {
      const r = await fetch(`${baseUrl}/openapi.json`);
      // Read to the end: an unread response keeps its connection busy, and a server stopped
      // later would wait for it (the SIGTERM test once waited 70 s).
      await r.arrayBuffer();
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, baseUrl, output: () => out, exited };
}

export async function api(baseUrl: string, key: string, method: string, path: string, body?: unknown) {
  const r = await fetchChecked(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return {
    status: r.status,
    body: (await r.json()) as Record<string, unknown> & { to: Record<string, string> },
  };
}
