import type { Logger } from 'pino';
import type { ConcatMode } from '../pdu/index.js';
import type { BackoffPolicy, BindMode, Endpoint } from '../session/index.js';

export interface SmppConnectorOptions extends Endpoint {
  /** The route name; receipts and attempts are recorded under it. */
  readonly name: string;
  readonly systemId: string;
  readonly password: string;
  readonly systemType?: string;
  readonly bindMode?: BindMode;
  readonly window?: number;
  readonly responseTimeoutMs?: number;
  readonly enquireLinkMs?: number;
  /** submit_sm per second; 0 = unlimited. */
  readonly throughput?: number;
  /** Override the sender's TON/NPI (otherwise: '+' msisdn 1/1, alphanumeric 5/0). */
  readonly sourceTon?: number;
  readonly sourceNpi?: number;
  /** Destination TON/NPI; default international / ISDN. */
  readonly destTon?: number;
  readonly destNpi?: number;
  /** For GSM-7 text: 0 (SMSC default alphabet) or 3 (Latin-1). UCS-2 is chosen when needed. */
  readonly defaultDataCoding?: 0 | 3;
  readonly concatenation?: ConcatMode;
  /** Set registered_delivery when the request asks for a receipt; false never asks. */
  readonly requestReceipts?: boolean;
  readonly logger: Logger;
  readonly connectTimeoutMs?: number;
  readonly reconnect?: Partial<BackoffPolicy>;
  readonly shutdownTimeoutMs?: number;
  readonly slowDownMs?: number;
  /** Give up on a concatenated inbound message not complete after this long. */
  readonly reassemblyTimeoutMs?: number;
  readonly maxOpenInbound?: number;
  /** How many submitted ids to remember for matching receipts that quote them in another form. */
  readonly recentIdCapacity?: number;
}

/**
 * The connector's own defaults (session defaults are in session/options.ts). Reassembly waits
 * 2 minutes: SMSCs deliver the parts of one message within seconds, but a receiver outage can
 * split them across a reconnect. 100,000 remembered ids cover a day's receipts at ~1 msg/s.
 */
export const CONNECTOR_DEFAULTS = {
  defaultDataCoding: 0,
  concatenation: 'udh8',
  requestReceipts: true,
  responseTimeoutMs: 10_000,
  reassemblyTimeoutMs: 120_000,
  maxOpenInbound: 1_000,
  recentIdCapacity: 100_000,
} as const;

export type ResolvedConnectorOptions = SmppConnectorOptions & {
  readonly [K in keyof typeof CONNECTOR_DEFAULTS]-?: NonNullable<SmppConnectorOptions[K]>;
};

export function resolveConnectorOptions(options: SmppConnectorOptions): ResolvedConnectorOptions {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return { ...CONNECTOR_DEFAULTS, ...defined } as ResolvedConnectorOptions;
}
