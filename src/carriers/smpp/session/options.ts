import type { Logger } from 'pino';
import type { PduOf } from '../pdu/index.js';
import { RECONNECT_BACKOFF, type BackoffPolicy } from './backoff.js';
import type { BindMode } from './bind.js';
import type { Endpoint } from './connect.js';

export type InboundPdu = PduOf<'deliver_sm'> | PduOf<'data_sm'>;

export interface SmppSessionOptions extends Endpoint {
  readonly systemId: string;
  readonly password: string;
  readonly systemType?: string;
  readonly bindMode?: BindMode;
  /** The bind's addr_ton / addr_npi / address_range (which MO numbers this bind serves). */
  readonly addrTon?: number;
  readonly addrNpi?: number;
  readonly addressRange?: string;
  /** Most submits awaiting a response at once. */
  readonly window?: number;
  readonly responseTimeoutMs?: number;
  /** enquire_link after this long without traffic from the SMSC. */
  readonly enquireLinkMs?: number;
  /** submit_sm per second; 0 = unlimited. */
  readonly throughput?: number;
  readonly connectTimeoutMs?: number;
  readonly reconnect?: Partial<BackoffPolicy>;
  /** stop(): how long to wait for outstanding submits and receipts before unbinding anyway. */
  readonly shutdownTimeoutMs?: number;
  /** How long a slow-down (after ESME_RTHROTTLED) lasts. */
  readonly slowDownMs?: number;
  readonly logger: Logger;
  /**
   * A deliver_sm or data_sm from the SMSC. Its response is sent only when this settles:
   * resolved → ESME_ROK, rejected → ESME_RX_T_APPN, so the SMSC delivers it again later.
   */
  readonly onDeliver: (pdu: InboundPdu) => Promise<void>;
}

/**
 * Defaults: a window of 10 and 10 s response timeout are what most SMSC contracts allow;
 * enquire_link every 30 s keeps NAT and firewall state alive (they commonly drop idle TCP
 * after 60 s or more).
 */
export const SESSION_DEFAULTS = {
  systemType: '',
  bindMode: 'transceiver',
  addrTon: 0,
  addrNpi: 0,
  addressRange: '',
  window: 10,
  responseTimeoutMs: 10_000,
  enquireLinkMs: 30_000,
  throughput: 0,
  connectTimeoutMs: 10_000,
  shutdownTimeoutMs: 10_000,
  slowDownMs: 10_000,
} as const satisfies Partial<SmppSessionOptions>;

export type ResolvedSessionOptions = Required<Omit<SmppSessionOptions, 'tls' | 'reconnect'>> &
  Pick<SmppSessionOptions, 'tls'> & { readonly reconnect: BackoffPolicy };

export function resolveSessionOptions(options: SmppSessionOptions): ResolvedSessionOptions {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return {
    ...SESSION_DEFAULTS,
    ...(defined as SmppSessionOptions),
    reconnect: { ...RECONNECT_BACKOFF, ...options.reconnect },
  } as ResolvedSessionOptions;
}
