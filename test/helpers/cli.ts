import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, vi } from 'vitest';

/** What the CLI printed in the running test, and a folder of its own. */
export interface CliSandbox {
  readonly dir: string;
  readonly stdout: string[];
  readonly stderr: string[];
}

/**
 * For a describe block of CLI tests: each test gets a fresh temporary folder, stdout and stderr
 * captured and logs silenced; all of it is undone after the test.
 */
export function useCliSandbox(): CliSandbox {
  const sandbox = { dir: '', stdout: [] as string[], stderr: [] as string[] };
  beforeEach(() => {
    sandbox.dir = mkdtempSync(join(tmpdir(), 'smsgw-cli-'));
    sandbox.stdout.length = 0;
    sandbox.stderr.length = 0;
    for (const [stream, lines] of [
      [process.stdout, sandbox.stdout],
      [process.stderr, sandbox.stderr],
    ] as const) {
      vi.spyOn(stream, 'write').mockImplementation((chunk) => {
        lines.push(String(chunk));
        return true;
      });
    }
    vi.stubEnv('SMSGW_LOG_LEVEL', 'silent');
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    rmSync(sandbox.dir, { recursive: true, force: true });
  });
  return sandbox;
}

/** Runs `action` with stdout captured; returns what it printed. */
export async function printedBy(action: () => Promise<unknown>): Promise<string> {
  const output: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    output.push(String(chunk));
    return true;
  });
  try {
    await action();
  } finally {
    spy.mockRestore();
  }
  return output.join('');
}
