import type { Pdu } from '../pdu/index.js';

/**
 * Why a request got no usable response. Each is a fact about the link, not a policy: the
 * connector's table (connector/submit-status.ts) decides what each means for a message.
 */
export type RequestFailure =
  /** No response within the response timeout; the slot is freed, the SMSC may still act on it. */
  | 'timeout'
  /** The link dropped while the request was outstanding. */
  | 'closed'
  /** The response arrived but could not be read (the codec's `invalid`). */
  | 'bad-response'
  /** No bound link: fail fast rather than queue while the SMSC is away. */
  | 'not-bound'
  /** stop() was called; no new requests are taken. */
  | 'stopping';

export type Reply =
  /** Any response, generic_nack included; the caller reads commandStatus. */
  | { readonly kind: 'response'; readonly pdu: Pdu }
  | { readonly kind: 'failed'; readonly error: RequestFailure; readonly detail: string };

export function failed(error: RequestFailure, detail: string): Reply {
  return { kind: 'failed', error, detail };
}
