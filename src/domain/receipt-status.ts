import type { Status } from './status.js';

/** Receipt states as connectors report them (src/carriers/port.ts ReceiptState). */
export type ReceiptState =
  'delivered' | 'expired' | 'deleted' | 'failed' | 'rejected' | 'unknown' | 'enroute';

/**
 * What a part's receipt means for its recipient (decisions §7). `enroute` (ACCEPTD, ENROUTE)
 * changes nothing. A recipient is delivered only when every part is; any other final receipt
 * of any part decides the recipient's status.
 */
export const RECEIPT_STATUS: { readonly [S in ReceiptState]: Status | null } = {
  delivered: 'delivered',
  expired: 'expired',
  deleted: 'deleted',
  failed: 'failed',
  rejected: 'rejected',
  unknown: 'unknown',
  enroute: null,
};

/** The recipient's status from its parts' receipt states, or null while it is still open. */
export function combinePartStates(states: readonly (string | null)[]): Status | null {
  for (const state of states) {
    const status = state === null ? null : (RECEIPT_STATUS[state as ReceiptState] ?? null);
    if (status !== null && status !== 'delivered') return status;
  }
  return states.length > 0 && states.every((s) => s === 'delivered') ? 'delivered' : null;
}
