import type { ReceiptState } from '../domain/receipt-status.js';

/**
 * The carrier port: what the dispatcher needs from a link to an SMSC. The simulator and the
 * SMPP connector implement it unchanged; the dispatcher never knows which one it talks to.
 */

export interface SubmitRequest {
  /** Our id for this submission (stable across retries), for correlation in logs. */
  readonly reference: string;
  /** Sender: '+' msisdn or an alphanumeric id. */
  readonly from: string;
  /** Destination, '+' E.164. */
  readonly to: string;
  /** The whole message text; the connector cuts it into parts (planParts in src/domain/parts.ts). */
  readonly body: string;
  readonly requestReceipt: boolean;
}

/**
 * Outcome of one submit, as policy-free data: the dispatcher decides what each means.
 * `connector` names the SMSC link that answered when the port fronts several (the router).
 */
export type SubmitOutcome = { readonly connector?: string } &
  /** The SMSC accepted every part; one carrier message id per part, in order. */
  (
    | { readonly kind: 'accepted'; readonly carrierIds: readonly string[] }
    /** Temporary: not bound, throttled, queue full, timeout. Try again later. */
    | { readonly kind: 'retry'; readonly reason: string; readonly afterMs?: number }
    /** Permanent: the SMSC refused the message (status `rejected`). */
    | { readonly kind: 'rejected'; readonly reason: string; readonly code?: number }
    /** The gateway gives up before any SMSC saw it, e.g. no route (status `aborted`). */
    | { readonly kind: 'aborted'; readonly reason: string }
  );

/** A final or intermediate state reported by a delivery receipt for one part. */
export type { ReceiptState };

export interface CarrierReceipt {
  /** The carrier message id of the part, as the submit returned it. */
  readonly carrierId: string;
  readonly state: ReceiptState;
  readonly at: number;
  /** Carrier error detail, e.g. the `err:` field of a receipt text. */
  readonly error?: string;
  /** The SMSC link it came from when the port fronts several (the router). */
  readonly connector?: string;
}

export interface InboundSms {
  readonly from: string;
  readonly to: string;
  readonly body: string;
  readonly receivedAt: number;
}

/** Events a connector raises; the engine records them durably before acknowledging. */
export interface CarrierEvents {
  receipt(receipt: CarrierReceipt): Promise<void>;
  inbound(message: InboundSms): Promise<void>;
}

export interface CarrierConnector {
  readonly name: string;
  start(events: CarrierEvents): Promise<void>;
  submit(request: SubmitRequest): Promise<SubmitOutcome>;
  /** Stop taking submits, let in-flight ones finish, unbind. */
  stop(): Promise<void>;
}
