import type tls from 'node:tls';
import type { Logger } from 'pino';
import type { IdFormat } from './message-ids.js';

export interface SmscSimulatorOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: an ephemeral port (read it back from the simulator). */
  readonly port?: number;
  /** Serve SMPP over TLS with this key and certificate. */
  readonly tls?: tls.TlsOptions;
  /** When set, binds must use this system_id / password; otherwise any is accepted. */
  readonly systemId?: string;
  readonly password?: string;
  /** The system_id we answer binds with. */
  readonly smscSystemId?: string;
  /** From submit to receipt. */
  readonly receiptDelayMs?: number;
  /** Most submits one session may have unanswered; more are ESME_RTHROTTLED. 0 = no limit. */
  readonly window?: number;
  /** Most submits per second per session (sliding second); more are ESME_RTHROTTLED. 0 = no limit. */
  readonly throughput?: number;
  /** Hold each submit_sm_resp this long (makes a window fill up, lets receipts overtake). */
  readonly responseDelayMs?: number;
  /** Send the receipt before the submit_sm_resp (an SMSC race the gateway must survive). */
  readonly receiptBeforeResponse?: boolean;
  /** Form of the ids in submit_sm_resp. */
  readonly idFormat?: IdFormat;
  /** Form of the ids in receipts; default the same as idFormat. */
  readonly receiptIdFormat?: IdFormat;
  /** How long to wait for a deliver_sm_resp, and to wait before sending an unacknowledged one again. */
  readonly deliverTimeoutMs?: number;
  readonly redeliveryDelayMs?: number;
  readonly maxDeliveryAttempts?: number;
  readonly logger?: Logger;
}

export const SIMULATOR_DEFAULTS = {
  host: '127.0.0.1',
  port: 0,
  smscSystemId: 'smsgw-sim',
  receiptDelayMs: 200,
  window: 0,
  throughput: 0,
  responseDelayMs: 0,
  receiptBeforeResponse: false,
  idFormat: 'hex',
  deliverTimeoutMs: 10_000,
  redeliveryDelayMs: 1_000,
  maxDeliveryAttempts: 5,
} as const;

export type ResolvedSimulatorOptions = Omit<
  SmscSimulatorOptions,
  keyof typeof SIMULATOR_DEFAULTS | 'logger'
> & {
  readonly [K in keyof typeof SIMULATOR_DEFAULTS]: NonNullable<SmscSimulatorOptions[K]>;
} & { readonly receiptIdFormat: IdFormat; readonly logger: Logger };
