/** A receipt's `stat` (or message_state) → the port's receipt state. Policy as data. */
import type { ReceiptState } from '../../port.js';
import type { ReceiptStat } from '../pdu/index.js';

export const RECEIPT_STATE_BY_STAT: { readonly [S in ReceiptStat]: ReceiptState } = {
  DELIVRD: 'delivered',
  EXPIRED: 'expired',
  DELETED: 'deleted',
  UNDELIV: 'failed',
  REJECTD: 'rejected',
  UNKNOWN: 'unknown',
  // Intermediate notifications: the SMSC has it, nothing final yet.
  ACCEPTD: 'enroute',
  ENROUTE: 'enroute',
};

/**
 * A receipt whose state we cannot read still ends the wait: `unknown` is what the receipt
 * timeout would give later anyway, and now the carrier's raw text is on record with it.
 */
export function receiptState(stat: ReceiptStat | null): ReceiptState {
  return stat === null ? 'unknown' : RECEIPT_STATE_BY_STAT[stat];
}
