/**
 * decisions §8, as an SMSC shows it: the destination's last digit decides. Every part of a
 * concatenated message gets the same outcome, and its own receipt.
 */
import { CommandStatus, MessageState, type ReceiptStat } from '../pdu/index.js';

export type SimulatedOutcome =
  | { readonly kind: 'accept'; readonly stat: ReceiptStat; readonly state: number; readonly err: string }
  | { readonly kind: 'reject'; readonly status: number };

const delivered: SimulatedOutcome = {
  kind: 'accept',
  stat: 'DELIVRD',
  state: MessageState.DELIVERED,
  err: '000',
};

export const OUTCOME_BY_LAST_DIGIT: Readonly<Record<string, SimulatedOutcome>> = {
  '0': delivered,
  '1': delivered,
  '2': delivered,
  '3': delivered,
  '4': delivered,
  // err: GSM MAP causes an SMSC would report (1 unknown subscriber, 27 absent subscriber).
  '5': { kind: 'accept', stat: 'UNDELIV', state: MessageState.UNDELIVERABLE, err: '001' },
  '6': { kind: 'reject', status: CommandStatus.ESME_RSUBMITFAIL },
  '7': { kind: 'accept', stat: 'EXPIRED', state: MessageState.EXPIRED, err: '027' },
  '8': { kind: 'accept', stat: 'DELETED', state: MessageState.DELETED, err: '000' },
  '9': { kind: 'accept', stat: 'UNKNOWN', state: MessageState.UNKNOWN, err: '000' },
};

/** Addresses not ending in a digit (alphanumeric test ids) are delivered. */
export function outcomeFor(destination: string): SimulatedOutcome {
  return OUTCOME_BY_LAST_DIGIT[destination.slice(-1)] ?? delivered;
}

/** registered_delivery bits 1–0 (§5.2.17): 01 always, 10 on failure only, else none. */
export function wantsReceipt(registeredDelivery: number, stat: ReceiptStat): boolean {
  const request = registeredDelivery & 0x03;
  return request === 1 || (request === 2 && stat !== 'DELIVRD');
}
