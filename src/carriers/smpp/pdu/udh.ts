/**
 * User Data Header (3GPP TS 23.040 §9.2.3.24) for concatenated messages: building the header
 * of an outbound part, and finding ref/total/seq of an inbound (MO) part in a UDH or in the
 * sar_* TLVs.
 */
import { EsmClass } from './esm-class.js';
import { getTlv } from './tlv-params.js';
import type { Tlv } from './tlv.js';

/** Information element ids: concatenation with an 8-bit or a 16-bit reference. */
export const Iei = { Concat8: 0x00, Concat16: 0x08 } as const;

export interface ConcatPart {
  ref: number;
  total: number;
  /** 1-based. */
  seq: number;
  /** The part's octets after the header. */
  body: Buffer;
}

/** `05 00 03 ref total seq` (8-bit ref) or `06 08 04 refhi reflo total seq` (16-bit ref). */
export function concatUdh(refBits: 8 | 16, ref: number, total: number, seq: number): Buffer {
  if (!(Number.isInteger(total) && Number.isInteger(seq) && total <= 255 && seq >= 1 && seq <= total)) {
    throw new RangeError(`part ${seq} of ${total} does not fit a concatenation UDH`);
  }
  return refBits === 8
    ? Buffer.of(0x05, Iei.Concat8, 0x03, ref & 0xff, total, seq)
    : Buffer.of(0x06, Iei.Concat16, 0x04, (ref >> 8) & 0xff, ref & 0xff, total, seq);
}

export interface Udh {
  elements: { iei: number; data: Buffer }[];
  body: Buffer;
}

/** Splits a UDH off `octets`; null when the header's lengths do not fit inside. */
export function readUdh(octets: Buffer): Udh | null {
  const udhl = octets[0];
  if (udhl === undefined || udhl + 1 > octets.length) return null;
  const elements: Udh['elements'] = [];
  for (let i = 1; i < udhl + 1;) {
    const iei = octets[i];
    const len = octets[i + 1];
    if (iei === undefined || len === undefined || i + 2 + len > udhl + 1) return null;
    elements.push({ iei, data: octets.subarray(i + 2, i + 2 + len) });
    i += 2 + len;
  }
  return { elements, body: octets.subarray(udhl + 1) };
}

function validPart(ref: number, total: number, seq: number, body: Buffer): ConcatPart | null {
  return total >= 1 && seq >= 1 && seq <= total ? { ref, total, seq, body } : null;
}

/** Concatenation info from a UDH; null when UDHI is off or there is no valid concat element. */
export function parseUdh(shortMessage: Buffer, esmClass: number): ConcatPart | null {
  if ((esmClass & EsmClass.Udhi) === 0) return null;
  const udh = readUdh(shortMessage);
  if (!udh) return null;
  for (const { iei, data } of udh.elements) {
    if (iei === Iei.Concat8 && data.length === 3) {
      return validPart(data.readUInt8(0), data.readUInt8(1), data.readUInt8(2), udh.body);
    }
    if (iei === Iei.Concat16 && data.length === 4) {
      return validPart(data.readUInt16BE(0), data.readUInt8(2), data.readUInt8(3), udh.body);
    }
  }
  return null;
}

/** Concatenation info from sar_msg_ref_num / sar_total_segments / sar_segment_seqnum. */
export function parseSar(tlvs: readonly Tlv[] | undefined, body: Buffer): ConcatPart | null {
  const ref = getTlv(tlvs, 'sar_msg_ref_num');
  const total = getTlv(tlvs, 'sar_total_segments');
  const seq = getTlv(tlvs, 'sar_segment_seqnum');
  if (ref === undefined || total === undefined || seq === undefined) return null;
  return validPart(ref, total, seq, body);
}

/** For a deliver_sm or data_sm: the text may be in message_payload, the concat info in either place. */
export function parseConcat(pdu: {
  esmClass: number;
  shortMessage?: Buffer;
  tlvs?: Tlv[];
}): ConcatPart | null {
  const octets = getTlv(pdu.tlvs, 'message_payload') ?? pdu.shortMessage ?? Buffer.alloc(0);
  const fromUdh = parseUdh(octets, pdu.esmClass);
  if (fromUdh) return fromUdh;
  // A UDH without a concat element (ports, say) is still not part of the text.
  const udh = (pdu.esmClass & EsmClass.Udhi) !== 0 ? readUdh(octets) : null;
  return parseSar(pdu.tlvs, udh?.body ?? octets);
}
