import { parseDuration, parseDurationList } from '../domain/duration.js';

/**
 * The whole runtime configuration, parsed once from the environment (decisions §1).
 * Nothing outside src/config reads process.env.
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseConfig;
  readonly adminToken: string | null;
  readonly carrier: 'simulator' | 'smpp';
  readonly simDelayMs: number;
  /** Simulator throughput limit in messages/s; 0 = unlimited. */
  readonly simThroughput: number;
  /** File the simulator appends every accepted submit to; null = none. */
  readonly simJournal: string | null;
  readonly webhookRetryMs: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookAllowPrivate: boolean;
  readonly receiptTimeoutMs: number;
  readonly maxRecipients: number;
  readonly logLevel: LogLevel;
  readonly bootstrapKey: string | null;
  /** This node's id among the nodes of one database; null: a new random one at every start. */
  readonly nodeId: string | null;
  /** How long a node's work stays its own after its last heartbeat (decisions §23). */
  readonly leaseTtlMs: number;
  /** What happens to submits a dead node had in flight (decisions §23). */
  readonly onInterrupted: 'resend' | 'unknown';
  /** Bearer token GET /metrics asks for; null = open (decisions §12). */
  readonly metricsToken: string | null;
  /** A request not fully received within this is answered 408 and its connection closed. */
  readonly requestTimeoutMs: number;
  /** Largest request body accepted; larger is 413. */
  readonly maxBodyBytes: number;
  /** Most connections open at once; further ones are closed as they arrive. */
  readonly maxConnections: number;
  /** Age after which finished messages and webhooks are deleted; null = kept (decisions §15). */
  readonly retentionMs: number | null;
  /** The SMPP server for customers (decisions §21); null = off. */
  readonly smppServer: SmppServerConfig | null;
  /** Most MB the engine thread's old generation may hold (V8's own limit is a few GB). */
  readonly engineHeapMb: number;
  /** SQLite's page cache per connection, in MB (the API and the engine have one each). */
  readonly sqliteCacheMb: number;
}

export interface SmppServerConfig {
  readonly port: number;
  /** PEM files; both set = SMPP over TLS on that port. */
  readonly tls: { readonly certFile: string; readonly keyFile: string } | null;
  /** A bind with no PDU for this long is unbound and closed. */
  readonly idleMs: number;
  /** Parts of a long submit not all received within this are given up. */
  readonly reassemblyMs: number;
}

export type DatabaseConfig =
  { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string };

/**
 * SQLite's page cache per connection. Pages it misses are read from the OS's file cache, a
 * system call each; at 64 MB the two connections held 128 MB of a 1 M backlog's pages
 * (RSS 369 MB while draining it, 290 MB at 8 MB), and the drain was no faster.
 */
export const SQLITE_CACHE_MB = 8;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_WEBHOOK_RETRY = '5s,5m,30m,2h,5h,10h,10h';

/** A bad configuration value; the message names the variable so start-up can say what to fix. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env): Config {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const carrier = oneOf(read, 'SMSGW_CARRIER', ['simulator', 'smpp'] as const, 'simulator');
  const maxRecipients = integer(read, 'SMSGW_MAX_RECIPIENTS', 10_000, 1, 1_000_000);
  return Object.freeze({
    port: integer(read, 'SMSGW_PORT', 8080, 0, 65535),
    host: read('SMSGW_HOST') ?? '127.0.0.1',
    database: databaseUrl(read('SMSGW_DATABASE_URL') ?? 'sqlite:./data/smsgw.sqlite'),
    adminToken: read('SMSGW_ADMIN_TOKEN') ?? null,
    carrier,
    simDelayMs: integer(read, 'SMSGW_SIM_DELAY_MS', 200, 0, 86_400_000),
    simThroughput: integer(read, 'SMSGW_SIM_THROUGHPUT', 0, 0, 1_000_000),
    simJournal: read('SMSGW_SIM_JOURNAL') ?? null,
    webhookRetryMs: Object.freeze(durationList(read, 'SMSGW_WEBHOOK_RETRY', DEFAULT_WEBHOOK_RETRY)),
    webhookTimeoutMs: integer(read, 'SMSGW_WEBHOOK_TIMEOUT_MS', 10_000, 1, 600_000),
    webhookAllowPrivate: boolean(read, 'SMSGW_WEBHOOK_ALLOW_PRIVATE', carrier === 'simulator'),
    receiptTimeoutMs: duration(read, 'SMSGW_RECEIPT_TIMEOUT', '48h'),
    maxRecipients,
    logLevel: oneOf(read, 'SMSGW_LOG_LEVEL', LOG_LEVELS, 'info'),
    bootstrapKey: read('SMSGW_BOOTSTRAP_KEY') ?? null,
    nodeId: nodeId(read('SMSGW_NODE_ID')),
    leaseTtlMs: duration(read, 'SMSGW_LEASE_TTL', '10s'),
    onInterrupted: oneOf(read, 'SMSGW_ON_INTERRUPTED', ['resend', 'unknown'] as const, 'resend'),
    metricsToken: read('SMSGW_METRICS_TOKEN') ?? null,
    requestTimeoutMs: integer(read, 'SMSGW_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    // Unset, it leaves room for SMSGW_MAX_RECIPIENTS numbers of ~20 bytes each plus the text.
    maxBodyBytes: integer(
      read,
      'SMSGW_MAX_BODY_BYTES',
      Math.max(1_048_576, maxRecipients * 40 + 65_536),
      1024,
      1 << 30,
    ),
    maxConnections: integer(read, 'SMSGW_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    engineHeapMb: integer(read, 'SMSGW_ENGINE_HEAP_MB', 128, 32, 65_536),
    sqliteCacheMb: integer(read, 'SMSGW_SQLITE_CACHE_MB', SQLITE_CACHE_MB, 1, 65_536),
    retentionMs: retention(read, 'SMSGW_RETENTION'),
    smppServer: smppServer(read),
  });
}

type Reader = (name: string) => string | undefined;

function integer(read: Reader, name: string, fallback: number, min: number, max: number): number {
  const raw = read(name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${raw}`);
  return value;
}

function boolean(read: Reader, name: string, fallback: boolean): boolean {
  const raw = read(name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function oneOf<T extends string>(read: Reader, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function duration(read: Reader, name: string, fallback: string): number {
  const raw = read(name) ?? fallback;
  const value = parseDuration(raw);
  if (value === null || value <= 0) {
    throw new ConfigError(name, `expected a duration such as 30s, 15m or 48h, got "${raw}"`);
  }
  return value;
}

/** `off` (the default) or a duration such as 90d. */
function retention(read: Reader, name: string): number | null {
  const raw = read(name);
  if (raw === undefined || raw.toLowerCase() === 'off') return null;
  const value = parseDuration(raw);
  if (value === null || value <= 0) {
    throw new ConfigError(name, `expected off or a duration such as 90d or 720h, got "${raw}"`);
  }
  return value;
}

function durationList(read: Reader, name: string, fallback: string): number[] {
  const raw = read(name) ?? fallback;
  const value = parseDurationList(raw);
  if (value === null) {
    throw new ConfigError(name, `expected comma-separated durations such as 5s,5m,30m, got "${raw}"`);
  }
  return value;
}

function smppServer(read: Reader): SmppServerConfig | null {
  const cert = read('SMSGW_SMPP_SERVER_TLS_CERT');
  const key = read('SMSGW_SMPP_SERVER_TLS_KEY');
  if ((cert === undefined) !== (key === undefined)) {
    throw new ConfigError(
      cert === undefined ? 'SMSGW_SMPP_SERVER_TLS_CERT' : 'SMSGW_SMPP_SERVER_TLS_KEY',
      'SMSGW_SMPP_SERVER_TLS_CERT and SMSGW_SMPP_SERVER_TLS_KEY go together',
    );
  }
  if (read('SMSGW_SMPP_SERVER_PORT') === undefined) return null;
  return Object.freeze({
    port: integer(read, 'SMSGW_SMPP_SERVER_PORT', 2775, 0, 65535),
    tls: cert !== undefined && key !== undefined ? Object.freeze({ certFile: cert, keyFile: key }) : null,
    idleMs: duration(read, 'SMSGW_SMPP_SERVER_IDLE', '5m'),
    reassemblyMs: duration(read, 'SMSGW_SMPP_SERVER_REASSEMBLY', '60s'),
  });
}

function nodeId(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(raw)) {
    throw new ConfigError('SMSGW_NODE_ID', `expected 1-64 of A-Z a-z 0-9 . _ : -, got "${raw}"`);
  }
  return raw;
}

function databaseUrl(raw: string): DatabaseConfig {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '')
      throw new ConfigError(
        'SMSGW_DATABASE_URL',
        'sqlite: needs a file path, e.g. sqlite:./data/smsgw.sqlite',
      );
    return { kind: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('SMSGW_DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: raw };
  }
  throw new ConfigError('SMSGW_DATABASE_URL', 'expected sqlite:PATH or postgres://…');
}
