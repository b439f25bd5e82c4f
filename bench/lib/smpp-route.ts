import { CONNECTOR_SETTING_DEFAULTS } from '../../src/app/connectors.js';
import type { RunningServer } from '../../src/server.js';

/**
 * Sends everything through one SMPP connector named `bench` to the SMSC at `port`, with the
 * connector defaults an operator gets (src/app/connectors.ts) and the given window. The running
 * router picks the connector up on its next reload (every 5 s); until it binds, submits would
 * only be retried, so this waits that long.
 */
export async function routeAllTo(server: RunningServer, port: number, window: number): Promise<void> {
  await server.store.connectors.create(
    {
      ...CONNECTOR_SETTING_DEFAULTS,
      name: 'bench',
      host: '127.0.0.1',
      port,
      systemId: 'smsgw',
      password: 'bench',
      window,
    },
    Date.now(),
  );
  await server.store.connectors.addRoute({ prefix: '+', connector: 'bench', priority: 0 }, Date.now());
  await new Promise((r) => setTimeout(r, 6_000));
}
