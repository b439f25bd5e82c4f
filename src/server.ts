import type { Logger } from 'pino';
import { ensureBootstrapAccount } from './app/accounts.js';
import type { Config } from './config/config.js';
import { buildApp, type App } from './http/app.js';
import { connect } from './store/connect.js';
import { migrate } from './store/migrations/index.js';
import type { Store } from './store/port.js';
import { createStore } from './store/store.js';

export interface RunningServer {
  readonly app: App;
  readonly store: Store;
  /** Base address of the public API, e.g. http://localhost:8080/v1 */
  readonly baseUrl: string;
  /** A key created on this start for the bootstrap account, else null. */
  readonly bootstrapApiKey: string | null;
  stop(): Promise<void>;
}

/** The composition root: config → store → use cases → HTTP (and, later, the runners). */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const conn = connect(config.database);
  await migrate(conn, logger);
  const store = createStore(conn);
  const now = () => Date.now();
  const { apiKey } = await ensureBootstrapAccount(store, config.bootstrapKey, now(), logger);
  const app = await buildApp({ config, store, logger, now });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost'].includes(config.host)
    ? 'localhost'
    : config.host;
  const baseUrl = `http://${host}:${port}/v1`;
  let stopping: Promise<void> | null = null;
  return {
    app,
    store,
    baseUrl,
    bootstrapApiKey: apiKey,
    stop() {
      stopping ??= (async () => {
        await app.close();
        await store.close();
      })();
      return stopping;
    },
  };
}
