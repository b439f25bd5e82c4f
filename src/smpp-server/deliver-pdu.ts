/**
 * What a queued deliver_sm holds (smpp_deliveries.payload) and the PDU built from it when it
 * goes out. The payload keeps facts, not octets, so a row queued by one version is sent by the
 * next in whatever form that one writes.
 */
import type { Status } from '../domain/status.js';
import {
  DataCoding,
  EsmClass,
  encodeText,
  makePdu,
  MessageState,
  tlv,
  type PduOf,
  type ReceiptStat,
} from '../carriers/smpp/pdu/index.js';

export interface ReceiptPayload {
  readonly kind: 'receipt';
  /** The messageID, in decimal as submit_sm_resp gave it. */
  readonly id: string;
  /** The recipient (the handset): source of the receipt. */
  readonly recipient: string;
  /** The message's sender: destination of the receipt. */
  readonly sender: string;
  readonly stat: ReceiptStat;
  readonly submitAt: number;
  readonly doneAt: number;
  /** The first 20 characters of the message. */
  readonly text: string;
}

export interface MoPayload {
  readonly kind: 'mo';
  readonly from: string;
  readonly to: string;
  readonly body: string;
}

export type DeliveryPayload = ReceiptPayload | MoPayload;

/** A recipient's final status as the receipt's stat (decisions §21 lists the six). */
export const STAT_OF_STATUS: Readonly<Partial<Record<Status, ReceiptStat>>> = {
  delivered: 'DELIVRD',
  failed: 'UNDELIV',
  // The gateway gave up before the SMSC took it: for the customer, not delivered.
  aborted: 'UNDELIV',
  expired: 'EXPIRED',
  rejected: 'REJECTD',
  deleted: 'DELETED',
  // Cancelled with cancel_sm (or the API): SMPP calls a cancelled message deleted.
  cancelled: 'DELETED',
  unknown: 'UNKNOWN',
};

const STATE_OF_STAT: Readonly<Record<ReceiptStat, number>> = {
  ENROUTE: MessageState.ENROUTE,
  DELIVRD: MessageState.DELIVERED,
  EXPIRED: MessageState.EXPIRED,
  DELETED: MessageState.DELETED,
  UNDELIV: MessageState.UNDELIVERABLE,
  ACCEPTD: MessageState.ACCEPTED,
  UNKNOWN: MessageState.UNKNOWN,
  REJECTD: MessageState.REJECTED,
};

export function messageStateOf(stat: ReceiptStat): number {
  return STATE_OF_STAT[stat];
}

/** YYMMDDhhmm in UTC, as the receipt text's dates. */
export function receiptDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;
}

/** The receipt text of decisions §21 (SMPP 3.4 Appendix B). */
export function receiptText(p: ReceiptPayload): string {
  const text = p.text.replace(/[^\x20-\x7e]/g, '?');
  return (
    `id:${p.id} sub:001 dlvrd:${p.stat === 'DELIVRD' ? 1 : 0} submit date:${receiptDate(p.submitAt)} ` +
    `done date:${receiptDate(p.doneAt)} stat:${p.stat} err:000 text:${text}`
  );
}

/** An msisdn (+digits) as an SMPP address: international, E.164; anything else alphanumeric. */
function address(value: string): { ton: number; npi: number; addr: string } {
  if (/^\+?\d{1,20}$/.test(value)) return { ton: 1, npi: 1, addr: value.replace(/^\+/, '') };
  return { ton: 5, npi: 0, addr: value.slice(0, 20) };
}

export function deliverPdu(payload: DeliveryPayload): PduOf<'deliver_sm'> {
  if (payload.kind === 'receipt') {
    const source = address(payload.recipient);
    const dest = address(payload.sender);
    return makePdu('deliver_sm', {
      sequenceNumber: 0,
      sourceAddrTon: source.ton,
      sourceAddrNpi: source.npi,
      sourceAddr: source.addr,
      destAddrTon: dest.ton,
      destAddrNpi: dest.npi,
      destinationAddr: dest.addr,
      esmClass: EsmClass.DeliveryReceipt,
      dataCoding: DataCoding.Gsm7,
      shortMessage: Buffer.from(receiptText(payload), 'latin1'),
      tlvs: [tlv('receipted_message_id', payload.id), tlv('message_state', messageStateOf(payload.stat))],
    });
  }
  const source = address(payload.from);
  const dest = address(payload.to);
  const gsm = encodeText(payload.body, DataCoding.Gsm7);
  const [dataCoding, octets] =
    gsm.kind === 'ok'
      ? [DataCoding.Gsm7, gsm.bytes]
      : [DataCoding.Ucs2, Buffer.from(payload.body, 'utf16le').swap16()];
  // Past one short_message the whole text rides in message_payload (SMPP 3.4 §5.3.2.32).
  const long = octets.length > 254;
  return makePdu('deliver_sm', {
    sequenceNumber: 0,
    sourceAddrTon: source.ton,
    sourceAddrNpi: source.npi,
    sourceAddr: source.addr,
    destAddrTon: dest.ton,
    destAddrNpi: dest.npi,
    destinationAddr: dest.addr,
    dataCoding,
    shortMessage: long ? Buffer.alloc(0) : octets,
    ...(long && { tlvs: [tlv('message_payload', octets)] }),
  });
}
