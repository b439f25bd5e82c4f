/**
 * Delivery receipts (SMPP 3.4 Appendix B): the de-facto text format in short_message and the
 * receipted_message_id / message_state TLVs that carry the same facts in structured form.
 */
import { EsmClass } from './esm-class.js';
import { nextKey, type ReceiptKey } from './receipt-keys.js';
import { getTlv, type NetworkErrorCode } from './tlv-params.js';
import type { Tlv } from './tlv.js';

/** message_state values (§5.2.28). */
export const MessageState = {
  ENROUTE: 1,
  DELIVERED: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIVERABLE: 5,
  ACCEPTED: 6,
  UNKNOWN: 7,
  REJECTED: 8,
} as const;

/** The seven-letter `stat:` forms of Appendix B. */
export type ReceiptStat =
  'ENROUTE' | 'DELIVRD' | 'EXPIRED' | 'DELETED' | 'UNDELIV' | 'ACCEPTD' | 'UNKNOWN' | 'REJECTD';

const STAT_BY_STATE: Readonly<Record<number, ReceiptStat>> = {
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};

// Some SMSCs spell the state out in full, as message_state's names do.
const STAT_BY_TEXT: Readonly<Record<string, ReceiptStat>> = {
  ...Object.fromEntries(Object.values(STAT_BY_STATE).map((s) => [s, s])),
  DELIVERED: 'DELIVRD',
  UNDELIVERABLE: 'UNDELIV',
  ACCEPTED: 'ACCEPTD',
  REJECTED: 'REJECTD',
};

/** Clock reading as the SMSC wrote it, in the SMSC's own (unstated) time zone. */
export interface ReceiptDate {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export interface ReceiptText {
  id: string | null;
  sub: string | null;
  dlvrd: string | null;
  submitDate: ReceiptDate | null;
  doneDate: ReceiptDate | null;
  /** Normalised to the seven-letter form; null when absent or not one we know (see statText). */
  stat: ReceiptStat | null;
  statText: string | null;
  err: string | null;
  text: string | null;
}

/** The value of a two-digit field at `at`, or -1 when either character is not a digit. */
function twoDigits(s: string, at: number): number {
  const tens = s.charCodeAt(at) - 48;
  const ones = s.charCodeAt(at + 1) - 48;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : -1;
}

/** YYMMDDhhmm or YYMMDDhhmmss. Read digit by digit: this runs for every receipt. */
function parseDate(s: string | null): ReceiptDate | null {
  if (s === null || (s.length !== 10 && s.length !== 12)) return null;
  const year = twoDigits(s, 0);
  const month = twoDigits(s, 2);
  const day = twoDigits(s, 4);
  const hour = twoDigits(s, 6);
  const minute = twoDigits(s, 8);
  const second = s.length === 12 ? twoDigits(s, 10) : 0;
  if (year < 0 || hour < 0 || minute < 0 || second < 0) return null;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  return { year: 2000 + year, month, day, hour, minute, second };
}

/**
 * Reads `id:… sub:… dlvrd:… submit date:… done date:… stat:… err:… text:…`. Keys are
 * case-insensitive and each optional; `text:` runs to the end. Null when no key is present.
 */
export function parseReceiptText(input: string): ReceiptText | null {
  const values: Record<ReceiptKey, string | null> = {
    id: null,
    sub: null,
    dlvrd: null,
    submitDate: null,
    doneDate: null,
    stat: null,
    err: null,
    text: null,
  };
  let match = nextKey(input, 0);
  if (match === null) return null;
  while (match !== null) {
    const { key, end } = match;
    if (key === 'text') {
      values.text ??= input.slice(end);
      break;
    }
    const next = nextKey(input, end);
    values[key] ??= input.slice(end, next === null ? input.length : next.index).trim();
    match = next;
  }
  const statText = values.stat;
  return {
    id: values.id,
    sub: values.sub,
    dlvrd: values.dlvrd,
    submitDate: parseDate(values.submitDate),
    doneDate: parseDate(values.doneDate),
    stat: statText === null ? null : (STAT_BY_TEXT[statText.toUpperCase()] ?? null),
    statText,
    err: values.err,
    text: values.text,
  };
}

interface InboundSm {
  esmClass: number;
  shortMessage?: Buffer;
  tlvs?: Tlv[];
}

/** An SMSC delivery receipt rather than a message from a handset. */
export function isDeliveryReceipt(pdu: InboundSm): boolean {
  const type = pdu.esmClass & EsmClass.MessageTypeMask;
  return type === EsmClass.DeliveryReceipt || getTlv(pdu.tlvs, 'receipted_message_id') !== undefined;
}

export interface Receipt {
  messageId: string | null;
  stat: ReceiptStat | null;
  err: string | null;
  networkError: NetworkErrorCode | null;
  /** The parsed text, when there was one. */
  parsed: ReceiptText | null;
}

/** The facts of a receipt; the TLVs win over the text where both are given, being unambiguous. */
export function readReceipt(pdu: InboundSm): Receipt | null {
  if (!isDeliveryReceipt(pdu)) return null;
  const raw = getTlv(pdu.tlvs, 'message_payload') ?? pdu.shortMessage ?? Buffer.alloc(0);
  const parsed = parseReceiptText(raw.toString('latin1'));
  const state = getTlv(pdu.tlvs, 'message_state');
  return {
    messageId: getTlv(pdu.tlvs, 'receipted_message_id') ?? parsed?.id ?? null,
    stat: (state !== undefined ? STAT_BY_STATE[state] : undefined) ?? parsed?.stat ?? null,
    err: parsed?.err ?? null,
    networkError: getTlv(pdu.tlvs, 'network_error_code') ?? null,
    parsed,
  };
}
