/** The ESME side of SMPP 3.4 over TCP or TLS; connector/ builds the carrier port on it. */
export {
  createSmppSession,
  type SessionState,
  type SessionStatus,
  type SmppSession,
  type SubmitFields,
  type SubmitResult,
} from './session.js';
export { SESSION_DEFAULTS, type InboundPdu, type SmppSessionOptions } from './options.js';
export { RECONNECT_BACKOFF, backoffDelay, type BackoffPolicy } from './backoff.js';
export type { BindMode } from './bind.js';
export type { Endpoint } from './connect.js';
export { Link, type LinkOptions, type Outgoing } from './link.js';
export type { Reply, RequestFailure } from './reply.js';
