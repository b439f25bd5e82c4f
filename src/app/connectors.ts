import { formatDateTime } from '../domain/dates.js';
import { illegal, missing, NotFoundError } from '../domain/errors.js';
import type { ConnectorPatch, ConnectorRecord, NewConnector, RouteRecord } from '../store/connectors.js';
import type { Store } from '../store/port.js';

/**
 * SMPP connectors and routes: the rules the admin API and the CLI share. Every check throws
 * `illegal(argument, value, info)` with the API's snake_case argument name, so both edges
 * report the same sentence.
 */

export const BIND_MODES = ['transceiver', 'transmitter_receiver'] as const;
export const CONCATENATION_MODES = ['udh8', 'udh16', 'sar', 'payload'] as const;
export const DATA_CODINGS = [0, 3] as const;

/** Defaults of a new connector: international/ISDN destinations, receipts asked for. */
export const CONNECTOR_SETTING_DEFAULTS = {
  systemType: '',
  bindMode: 'transceiver',
  tls: false,
  window: 10,
  throughput: 0,
  sourceTon: null,
  sourceNpi: null,
  destTon: 1,
  destNpi: 1,
  defaultDataCoding: 0,
  concatenation: 'udh8',
  requestReceipts: true,
  enabled: true,
  maxBinds: 1,
} as const satisfies Partial<NewConnector>;

/** Settings as an edge received them: any value may be wrong until checked. */
export type ConnectorSettingsInput = { readonly [K in keyof ConnectorPatch]?: unknown };
export type ConnectorInput = ConnectorSettingsInput & { readonly name?: unknown };

const NAME = /^[A-Za-z0-9_-]{1,40}$/;
const PREFIX = /^\+\d{0,15}$/;
/** Kept inside a 32-bit integer column on both engines. */
const PRIORITY_LIMIT = 1_000_000;
const THROUGHPUT_MAX = 1_000_000;
/** Binds to one SMSC across the nodes; SMSCs allow a handful per account, rarely more. */
const MAX_BINDS_MAX = 100;

/** Bind fields are C-octet strings of one octet per character (SMPP 3.4 §4.1). */
function isLatin1(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0 || code > 0xff) return false;
  }
  return true;
}

export function isConnectorName(value: string): boolean {
  return NAME.test(value);
}

export function checkConnectorName(value: unknown): string {
  if (typeof value !== 'string' || !NAME.test(value))
    throw illegal('name', value, 'name must be 1 to 40 of the characters a-z A-Z 0-9 _ -');
  return value;
}

/** A complete new connector, defaults filled in; throws on the first bad or missing value. */
export function checkNewConnector(input: ConnectorInput): NewConnector {
  const name = checkConnectorName(input.name);
  const patch = checkConnectorPatch(input);
  const { host, port, systemId, password } = patch;
  if (host === undefined) throw missing('host');
  if (port === undefined) throw missing('port');
  if (systemId === undefined) throw missing('system_id');
  if (password === undefined) throw missing('password');
  return { ...CONNECTOR_SETTING_DEFAULTS, ...patch, name, host, port, systemId, password };
}

/** The settings present in `input`, checked; absent (undefined) ones are left out. */
export function checkConnectorPatch(v: ConnectorSettingsInput): ConnectorPatch {
  const patch: { -readonly [K in keyof ConnectorPatch]: ConnectorPatch[K] } = {};
  if (v.host !== undefined) patch.host = checkHost(v.host);
  if (v.port !== undefined) patch.port = int('port', v.port, 1, 65535, 'port must be 1 to 65535');
  if (v.systemId !== undefined)
    patch.systemId = text('system_id', v.systemId, 1, 15, 'system_id must be 1 to 15 Latin-1 characters');
  if (v.password !== undefined)
    patch.password = text('password', v.password, 0, 8, 'password must be at most 8 Latin-1 characters');
  if (v.systemType !== undefined)
    patch.systemType = text(
      'system_type',
      v.systemType,
      0,
      12,
      'system_type must be at most 12 Latin-1 characters',
    );
  if (v.bindMode !== undefined) patch.bindMode = oneOf('bind_mode', v.bindMode, BIND_MODES);
  if (v.tls !== undefined) patch.tls = bool('tls', v.tls);
  if (v.window !== undefined)
    patch.window = int('window', v.window, 1, 1000, 'window must be 1 to 1000 outstanding submits');
  if (v.throughput !== undefined)
    patch.throughput = int(
      'throughput',
      v.throughput,
      0,
      THROUGHPUT_MAX,
      `throughput must be 0 (unlimited) to ${THROUGHPUT_MAX} messages per second`,
    );
  if (v.sourceTon !== undefined)
    patch.sourceTon = v.sourceTon === null ? null : ton('source_ton', v.sourceTon);
  if (v.sourceNpi !== undefined)
    patch.sourceNpi = v.sourceNpi === null ? null : npi('source_npi', v.sourceNpi);
  if (v.destTon !== undefined) patch.destTon = ton('dest_ton', v.destTon);
  if (v.destNpi !== undefined) patch.destNpi = npi('dest_npi', v.destNpi);
  if (v.defaultDataCoding !== undefined)
    patch.defaultDataCoding = oneOf('default_data_coding', v.defaultDataCoding, DATA_CODINGS);
  if (v.concatenation !== undefined)
    patch.concatenation = oneOf('concatenation', v.concatenation, CONCATENATION_MODES);
  if (v.requestReceipts !== undefined) patch.requestReceipts = bool('request_receipts', v.requestReceipts);
  if (v.enabled !== undefined) patch.enabled = bool('enabled', v.enabled);
  if (v.maxBinds !== undefined)
    patch.maxBinds = int(
      'max_binds',
      v.maxBinds,
      1,
      MAX_BINDS_MAX,
      `max_binds must be 1 to ${MAX_BINDS_MAX} binds across all nodes`,
    );
  return patch;
}

function checkHost(value: unknown): string {
  if (typeof value !== 'string' || !/^[^\s/]{1,253}$/.test(value))
    throw illegal('host', value, 'host must be a host name or IP address, without spaces or a scheme');
  return value;
}

function int(argument: string, value: unknown, min: number, max: number, info: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw illegal(argument, value, info);
  return value;
}

function ton(argument: string, value: unknown): number {
  return int(argument, value, 0, 6, `${argument} must be a type of number from 0 to 6`);
}

function npi(argument: string, value: unknown): number {
  return int(argument, value, 0, 18, `${argument} must be a numbering plan indicator from 0 to 18`);
}

function text(argument: string, value: unknown, min: number, max: number, info: string): string {
  if (typeof value !== 'string' || value.length < min || value.length > max || !isLatin1(value))
    throw illegal(argument, value, info);
  return value;
}

function bool(argument: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw illegal(argument, value, `${argument} must be true or false`);
  return value;
}

function oneOf<const T extends string | number>(argument: string, value: unknown, allowed: readonly T[]): T {
  if (!(allowed as readonly unknown[]).includes(value))
    throw illegal(argument, value, `${argument} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function checkRoute(input: { prefix: unknown; connector: unknown; priority?: unknown }): {
  prefix: string;
  connector: string;
  priority: number;
} {
  if (typeof input.prefix !== 'string' || !PREFIX.test(input.prefix))
    throw illegal(
      'prefix',
      input.prefix,
      'prefix must be + followed by up to 15 digits, e.g. +61; + alone matches every destination',
    );
  if (typeof input.connector !== 'string' || !NAME.test(input.connector))
    throw illegal('connector', input.connector, 'connector must be the name of a connector');
  const priority =
    input.priority === undefined
      ? 0
      : int(
          'priority',
          input.priority,
          -PRIORITY_LIMIT,
          PRIORITY_LIMIT,
          `priority must be a whole number from ${-PRIORITY_LIMIT} to ${PRIORITY_LIMIT}; lower goes first`,
        );
  return { prefix: input.prefix, connector: input.connector, priority };
}

export async function requireConnector(store: Store, name: string): Promise<ConnectorRecord> {
  const connector = isConnectorName(name) ? await store.connectors.get(name) : null;
  if (!connector) throw new NotFoundError(`There is no connector named ${name}`);
  return connector;
}

/** Null when the name is taken. */
export async function createConnector(
  store: Store,
  input: ConnectorInput,
  now: number,
): Promise<ConnectorRecord | null> {
  return store.connectors.create(checkNewConnector(input), now);
}

/** Null when there is no connector of that name. */
export async function updateConnector(
  store: Store,
  name: string,
  input: ConnectorSettingsInput,
  now: number,
): Promise<ConnectorRecord | null> {
  return store.connectors.update(name, checkConnectorPatch(input), now);
}

/** Null when the connector already has a route with that prefix. */
export async function addRoute(
  store: Store,
  input: { prefix: unknown; connector: unknown; priority?: unknown },
  now: number,
): Promise<RouteRecord | null> {
  const route = checkRoute(input);
  const result = await store.connectors.addRoute(route, now);
  if (result === 'no_connector')
    throw illegal('connector', route.connector, `There is no connector named ${route.connector}`);
  return result === 'exists' ? null : result;
}

/** A connector as the admin API and CLI show it: never its password. */
export function connectorView(c: ConnectorRecord) {
  return {
    connectorID: c.id,
    name: c.name,
    host: c.host,
    port: c.port,
    system_id: c.systemId,
    password_set: c.password !== '',
    system_type: c.systemType,
    bind_mode: c.bindMode,
    tls: c.tls,
    window: c.window,
    throughput: c.throughput,
    source_ton: c.sourceTon,
    source_npi: c.sourceNpi,
    dest_ton: c.destTon,
    dest_npi: c.destNpi,
    default_data_coding: c.defaultDataCoding,
    concatenation: c.concatenation,
    request_receipts: c.requestReceipts,
    enabled: c.enabled,
    max_binds: c.maxBinds,
    created_at: formatDateTime(c.createdAt),
    updated_at: formatDateTime(c.updatedAt),
  };
}

export function routeView(r: RouteRecord) {
  return {
    routeID: r.id,
    prefix: r.prefix,
    connector: r.connector,
    priority: r.priority,
    created_at: formatDateTime(r.createdAt),
  };
}
