import { MIGRATIONS } from '../store/migrations/index.js';
import type { Store } from '../store/port.js';

/** Where the process stands, as the composition root knows it (src/server.ts). */
export interface Lifecycle {
  /** The sending engine: 'ok' while it runs, else why not ('starting', 'failed'). */
  engine(): string;
  /** True from the moment a shutdown starts: a load balancer should stop sending traffic. */
  stopping(): boolean;
}

export interface Readiness {
  readonly ready: boolean;
  /** Each check's 'ok' or why not; never an internal message (it is served without a key). */
  readonly checks: { readonly database: string; readonly migrations: string; readonly engine: string };
}

/** A database that has not answered by then counts as down: a probe must answer in time. */
const DATABASE_TIMEOUT_MS = 2_000;

/** decisions §12: ready when the database answers, migrations are applied and the engine runs. */
export async function checkReadiness(store: Store, lifecycle: Lifecycle | undefined): Promise<Readiness> {
  const engine =
    lifecycle === undefined ? 'not running' : lifecycle.stopping() ? 'shutting down' : lifecycle.engine();
  const database = await answers(store.operations.ping());
  let migrations = 'unknown';
  if (database === 'ok') {
    try {
      const missing = await store.operations.missingMigrations(MIGRATIONS.map((m) => m.version));
      migrations = missing.length === 0 ? 'ok' : 'pending';
    } catch {
      // The database answers but the version table cannot be read: not a store this version made.
    }
  }
  return {
    ready: database === 'ok' && migrations === 'ok' && engine === 'ok',
    checks: { database, migrations, engine },
  };
}

/** 'ok', 'unreachable', or 'timeout' when the database has not answered within DATABASE_TIMEOUT_MS. */
async function answers(ping: Promise<void>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>(
    (resolve) => (timer = setTimeout(() => resolve('timeout'), DATABASE_TIMEOUT_MS)),
  );
  try {
    return await Promise.race([
      ping.then(
        () => 'ok',
        () => 'unreachable',
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
