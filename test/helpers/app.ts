import { pino } from 'pino';
import { createAccount, type AccountInput } from '../../src/app/accounts.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { buildApp, type App } from '../../src/http/app.js';
import type { Account, Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { checkContract } from './contract.js';
import { createTestDatabase, type TestDatabase } from './engines.js';

export const ADMIN_TOKEN = 'test-admin-token';

export interface TestApp {
  readonly app: App;
  readonly store: Store;
  readonly db: TestDatabase;
  readonly config: Config;
  /** An account with any sender and unlimited credit, and its key. */
  readonly account: Account;
  readonly key: string;
  /** The clock the app reads; tests move it. */
  clock: { now: number };
  newAccount(input?: Partial<AccountInput>): Promise<{ account: Account; key: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Read the real clock (engine tests) instead of the fixed test clock. */
  readonly realClock?: boolean;
  /** Wakes the engine after POST/PATCH, as the server wires it. */
  readonly wake?: () => void;
}

export async function createTestApp(
  engine: 'sqlite' | 'postgres',
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const db = await createTestDatabase(engine);
  const config = loadConfig({ SMSGW_ADMIN_TOKEN: ADMIN_TOKEN, SMSGW_LOG_LEVEL: 'silent', ...env });
  const store = createStore(db.conn);
  const clock = { now: Date.parse('2026-11-21T12:00:00.000Z') };
  const now = options.realClock ? () => Date.now() : () => clock.now;
  const app = await buildApp({
    config,
    store,
    logger: pino({ level: 'silent' }),
    now,
    wake: () => options.wake?.(),
  });
  checkContract(app);
  let counter = 0;
  const newAccount = async (input: Partial<AccountInput> = {}) => {
    counter += 1;
    const { account, key } = await createAccount(
      store,
      { name: `acct-${counter}`, anySender: true, ...input },
      now(),
    );
    return { account, key: key.apiKey };
  };
  const first = await newAccount();
  return {
    app,
    store,
    db,
    config,
    account: first.account,
    key: first.key,
    clock,
    newAccount,
    async close() {
      await app.close();
      await db.drop();
    },
  };
}

/** `inject` with JSON in and out and the key of the test account. */
export async function call(
  t: TestApp,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT' | 'OPTIONS' | 'HEAD',
  url: string,
  body?: unknown,
  key: string | null = t.key,
) {
  const response = await t.app.inject({
    method,
    url,
    headers: {
      ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  let json: unknown = undefined;
  try {
    json = response.body === '' ? undefined : JSON.parse(response.body);
  } catch {
    json = response.body;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  return { status: response.statusCode, headers: response.headers, body: json as any };
}
