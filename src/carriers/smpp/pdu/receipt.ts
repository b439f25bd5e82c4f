/**
 * Delivery receipts (SMPP 3.4 Appendix B): the de-facto text format in short_message and the
 * receipted_message_id / message_state TLVs that carry the same facts in structured form.
 */
import { EsmClass } from './esm-class.js';
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

const KEY = /(?:^|\s)(id|sub|dlvrd|submit[ _]?date|done[ _]?date|stat|err|text)\s*:/gi;

function parseDate(s: string | undefined): ReceiptDate | null {
  const m = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?$/.exec(s ?? '');
  if (!m) return null;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = m
    .slice(1)
    .map((d) => Number(d ?? 0));
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  return { year: 2000 + year, month, day, hour, minute, second };
}

/**
 * Reads `id:… sub:… dlvrd:… submit date:… done date:… stat:… err:… text:…`. Keys are
 * case-insensitive and each optional; `text:` runs to the end. Null when no key is present.
 */
export function parseReceiptText(input: string): ReceiptText | null {
  const keys = [...input.matchAll(KEY)];
  if (keys.length === 0) return null;
  const values = new Map<string, string>();
  for (let i = 0; i < keys.length; i++) {
    const m = keys[i] as RegExpExecArray;
    const key = (m[1] as string).toLowerCase().replace(/[ _]/g, '');
    const start = m.index + m[0].length;
    const isText = key === 'text';
    const end = isText ? input.length : (keys[i + 1]?.index ?? input.length);
    if (!values.has(key)) values.set(key, isText ? input.slice(start) : input.slice(start, end).trim());
    if (isText) break;
  }
  const get = (k: string): string | null => values.get(k) ?? null;
  const statText = get('stat');
  return {
    id: get('id'),
    sub: get('sub'),
    dlvrd: get('dlvrd'),
    submitDate: parseDate(values.get('submitdate')),
    doneDate: parseDate(values.get('donedate')),
    stat: statText === null ? null : (STAT_BY_TEXT[statText.toUpperCase()] ?? null),
    statText,
    err: get('err'),
    text: get('text'),
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
