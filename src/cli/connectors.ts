import {
  addRoute,
  connectorView,
  createConnector,
  requireConnector,
  routeView,
  updateConnector,
  type ConnectorSettingsInput,
} from '../app/connectors.js';
import { NotFoundError } from '../domain/errors.js';
import { integer, nullable, optionalString, parse, requireString, type Parsed } from './args.js';
import type { Command } from './commands.js';
import { UsageError, print, withStore } from './context.js';

// Changes made here reach a running server within its reload period (5 s): there is no
// server to tell, and the CLI works without one.

const settingOptions = {
  host: { type: 'string' },
  port: { type: 'string' },
  'system-id': { type: 'string' },
  password: { type: 'string' },
  'system-type': { type: 'string' },
  'bind-mode': { type: 'string' },
  tls: { type: 'boolean' },
  'no-tls': { type: 'boolean' },
  window: { type: 'string' },
  throughput: { type: 'string' },
  'source-ton': { type: 'string' },
  'source-npi': { type: 'string' },
  'dest-ton': { type: 'string' },
  'dest-npi': { type: 'string' },
  'data-coding': { type: 'string' },
  concatenation: { type: 'string' },
  receipts: { type: 'boolean' },
  'no-receipts': { type: 'boolean' },
  enabled: { type: 'boolean' },
  disabled: { type: 'boolean' },
  'max-binds': { type: 'string' },
} as const;

const SETTINGS_USAGE =
  '[--system-type T] [--bind-mode transceiver|transmitter_receiver] [--tls | --no-tls]\n' +
  '       [--window N] [--throughput N] [--source-ton N|none] [--source-npi N|none] [--dest-ton N]\n' +
  '       [--dest-npi N] [--data-coding 0|3] [--concatenation udh8|udh16|sar|payload]\n' +
  '       [--receipts | --no-receipts] [--enabled | --disabled] [--max-binds N]';

/** A flag pair such as --tls / --no-tls: undefined when neither is given. */
function toggle(values: Parsed['values'], on: string, off: string): boolean | undefined {
  if (values[on] === true && values[off] === true) throw new UsageError(`--${on} and --${off} conflict`);
  return values[on] === true ? true : values[off] === true ? false : undefined;
}

/** `none` clears the sender TON/NPI override (chosen per sender again). */
function nullableInteger(values: Parsed['values'], name: string): number | null | undefined {
  const value = nullable(optionalString(values, name));
  return value === null ? null : integer(value, name);
}

function settingsInput(values: Parsed['values']): ConnectorSettingsInput {
  return {
    host: optionalString(values, 'host'),
    port: integer(optionalString(values, 'port'), 'port'),
    systemId: optionalString(values, 'system-id'),
    password: optionalString(values, 'password'),
    systemType: optionalString(values, 'system-type'),
    bindMode: optionalString(values, 'bind-mode'),
    tls: toggle(values, 'tls', 'no-tls'),
    window: integer(optionalString(values, 'window'), 'window'),
    throughput: integer(optionalString(values, 'throughput'), 'throughput'),
    sourceTon: nullableInteger(values, 'source-ton'),
    sourceNpi: nullableInteger(values, 'source-npi'),
    destTon: integer(optionalString(values, 'dest-ton'), 'dest-ton'),
    destNpi: integer(optionalString(values, 'dest-npi'), 'dest-npi'),
    defaultDataCoding: integer(optionalString(values, 'data-coding'), 'data-coding'),
    concatenation: optionalString(values, 'concatenation'),
    requestReceipts: toggle(values, 'receipts', 'no-receipts'),
    enabled: toggle(values, 'enabled', 'disabled'),
    maxBinds: integer(optionalString(values, 'max-binds'), 'max-binds'),
  };
}

function positional(positionals: string[], index: number, name: string): string {
  const value = positionals[index];
  if (value === undefined) throw new UsageError(`${name} is required`);
  return value;
}

export const CONNECTOR_COMMANDS: Record<string, Command> = {
  'connectors add': {
    usage:
      'smsgw connectors add --name NAME --host HOST --port PORT --system-id ID --password PW\n' +
      `       ${SETTINGS_USAGE}`,
    summary: 'Add an SMPP connector (printed without its password)',
    async run(argv, config) {
      const { values } = parse(argv, { name: { type: 'string' }, ...settingOptions });
      const input = { name: requireString(values, 'name'), ...settingsInput(values) };
      for (const required of ['host', 'port', 'system-id', 'password']) {
        if (optionalString(values, required) === undefined) throw new UsageError(`--${required} is required`);
      }
      await withStore(config, async ({ store, now }) => {
        const created = await createConnector(store, input, now());
        if (!created) throw new UsageError(`a connector named ${input.name} exists`);
        print(connectorView(created));
      });
    },
  },

  'connectors list': {
    usage: 'smsgw connectors list',
    summary: 'Print the SMPP connectors (without passwords)',
    async run(argv, config) {
      parse(argv, {});
      await withStore(config, async ({ store }) => {
        print({ connectors: (await store.connectors.list()).map((c) => connectorView(c)) });
      });
    },
  },

  'connectors update': {
    usage: `smsgw connectors update NAME [--host HOST] [--port PORT] [--system-id ID] [--password PW]\n       ${SETTINGS_USAGE}`,
    summary: 'Change an SMPP connector; a running server rebinds it with the new settings',
    async run(argv, config) {
      const { values, positionals } = parse(argv, settingOptions);
      const name = positional(positionals, 0, 'NAME');
      const input = settingsInput(values);
      await withStore(config, async ({ store, now }) => {
        const connector = await requireConnector(store, name);
        const updated = await updateConnector(store, connector.name, input, now());
        if (!updated) throw new NotFoundError(`There is no connector named ${name}`);
        print(connectorView(updated));
      });
    },
  },

  'connectors remove': {
    usage: 'smsgw connectors remove NAME',
    summary: 'Remove an SMPP connector and its routes',
    async run(argv, config) {
      const { positionals } = parse(argv, {});
      const name = positional(positionals, 0, 'NAME');
      await withStore(config, async ({ store }) => {
        const connector = await requireConnector(store, name);
        if (!(await store.connectors.remove(connector.name)))
          throw new NotFoundError(`There is no connector named ${name}`);
        print({ name: connector.name, removed: true });
      });
    },
  },

  'routes add': {
    usage: 'smsgw routes add --prefix +61 --connector NAME [--priority N]',
    summary: 'Route destinations starting with a prefix (+ alone: all) to a connector',
    async run(argv, config) {
      const { values } = parse(argv, {
        prefix: { type: 'string' },
        connector: { type: 'string' },
        priority: { type: 'string' },
      });
      const input = {
        prefix: requireString(values, 'prefix'),
        connector: requireString(values, 'connector'),
        priority: integer(optionalString(values, 'priority'), 'priority'),
      };
      await withStore(config, async ({ store, now }) => {
        const route = await addRoute(store, input, now());
        if (!route) throw new UsageError(`${input.connector} already has a route for ${input.prefix}`);
        print(routeView(route));
      });
    },
  },

  'routes list': {
    usage: 'smsgw routes list',
    summary: 'Print the routes in the order they are tried',
    async run(argv, config) {
      parse(argv, {});
      await withStore(config, async ({ store }) => {
        print({ routes: (await store.connectors.listRoutes()).map(routeView) });
      });
    },
  },

  'routes remove': {
    usage: 'smsgw routes remove ROUTE_ID',
    summary: 'Remove a route',
    async run(argv, config) {
      const { positionals } = parse(argv, {});
      const raw = positional(positionals, 0, 'ROUTE_ID');
      if (!/^\d{1,15}$/.test(raw)) throw new UsageError('ROUTE_ID is a whole number (see routes list)');
      const id = Number(raw);
      await withStore(config, async ({ store }) => {
        if (!(await store.connectors.removeRoute(id))) throw new NotFoundError('No route with that routeID');
        print({ routeID: id, removed: true });
      });
    },
  },
};
