import { existsSync } from 'node:fs';
import { pino } from 'pino';
import { loadConfig, type Config } from '../config/config.js';
import { connect } from '../store/connect.js';
import { migrate } from '../store/migrations/index.js';
import type { Store } from '../store/port.js';
import { createStore } from '../store/store.js';

/** Thrown for a usage mistake; printed with the command's help, exit code 2. */
export class UsageError extends Error {}

export interface CliContext {
  readonly config: Config;
  readonly store: Store;
  readonly now: () => number;
}

export function cliConfig(env: NodeJS.ProcessEnv): Config {
  if (existsSync('.env')) process.loadEnvFile('.env');
  return loadConfig(env);
}

/**
 * Commands work on the store directly, with or without a server running: SQLite's WAL lets a
 * second process write beside the server, and PostgreSQL is shared anyway.
 */
export async function withStore<T>(config: Config, run: (ctx: CliContext) => Promise<T>): Promise<T> {
  const conn = connect(config.database);
  try {
    await migrate(conn, pino({ level: config.logLevel === 'info' ? 'warn' : config.logLevel }));
    return await run({ config, store: createStore(conn), now: () => Date.now() });
  } finally {
    await conn.close();
  }
}

export function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
