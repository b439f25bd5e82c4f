/**
 * One message → the short_message / esm_class / TLVs of each submit_sm. Texts are cut where
 * planParts (src/domain/parts.ts) cuts them, so the parts we send are the parts we bill and no
 * ESC + character or surrogate pair is ever split across two PDUs.
 */
import { PART_LIMITS, cutText, isGsm7, type Encoding, type PartLimits } from '../../../domain/parts.js';
import { DataCoding, encodeText, type EncodeTextResult } from './encoding.js';
import { EsmClass } from './esm-class.js';
import { tlv } from './tlv-params.js';
import type { Tlv } from './tlv.js';
import { concatUdh } from './udh.js';

/**
 * udh8 / udh16: a concatenation UDH in each short_message. sar: the sar_* TLVs, the SMSC
 * builds the UDH. payload: the whole text in one message_payload TLV, the SMSC splits it.
 */
export type ConcatMode = 'udh8' | 'udh16' | 'sar' | 'payload';

export interface SubmitPart {
  shortMessage: Buffer;
  /** Only the UDHI bit (or 0); OR it into the esm_class the submit otherwise uses. */
  esmClass: number;
  tlvs: Tlv[];
}

export type SplitResult =
  | { kind: 'ok'; parts: SubmitPart[] }
  | Exclude<EncodeTextResult, { kind: 'ok' }>
  /** A UDH counts parts in one octet. */
  | { kind: 'too-many-parts'; count: number };

/**
 * A 16-bit reference makes the UDH 7 octets: 8 septets of the 160, 133 of the 140 octets. So
 * udh16 parts are one unit smaller and may need one part more than planParts bills.
 */
const UDH16_LIMITS: Readonly<Record<Encoding, PartLimits>> = {
  gsm7: { single: 160, multi: 152 },
  ucs2: { single: 70, multi: 66 },
};

function textParts(text: string, dataCoding: number, mode: ConcatMode): string[] {
  const limits = mode === 'udh16' ? UDH16_LIMITS : PART_LIMITS;
  if (dataCoding === DataCoding.Gsm7) return cutText(text, 'gsm7', limits.gsm7);
  if (dataCoding === DataCoding.Ucs2) return cutText(text, 'ucs2', limits.ucs2);
  // Latin-1: the SMSC turns it into GSM-7 on air, where extension characters take two septets,
  // so GSM-7 text is cut like GSM-7; other Latin-1 text takes one unit per character.
  return cutText(text, isGsm7(text) ? 'gsm7' : 'ucs2', limits.gsm7);
}

export function splitForSubmit(text: string, dataCoding: number, mode: ConcatMode, ref: number): SplitResult {
  const whole = encodeText(text, dataCoding);
  if (whole.kind !== 'ok') return whole;
  if (mode === 'payload') {
    return {
      kind: 'ok',
      parts: [{ shortMessage: Buffer.alloc(0), esmClass: 0, tlvs: [tlv('message_payload', whole.bytes)] }],
    };
  }
  const texts = textParts(text, dataCoding, mode);
  if (texts.length > 255) return { kind: 'too-many-parts', count: texts.length };
  const total = texts.length;
  // Most messages are one part, the text itself: its bytes are encoded already.
  if (total === 1 && texts[0] === text)
    return { kind: 'ok', parts: [{ shortMessage: whole.bytes, esmClass: 0, tlvs: [] }] };
  const parts = texts.map((piece, i): SubmitPart => {
    const r = encodeText(piece, dataCoding);
    // Every piece of an encodable text is encodable: cuts never fall inside a character.
    if (r.kind !== 'ok') throw new Error(`unreachable: part ${i + 1} failed to encode`);
    if (total === 1) return { shortMessage: r.bytes, esmClass: 0, tlvs: [] };
    if (mode === 'sar') {
      const tlvs = [
        tlv('sar_msg_ref_num', ref & 0xffff),
        tlv('sar_total_segments', total),
        tlv('sar_segment_seqnum', i + 1),
      ];
      return { shortMessage: r.bytes, esmClass: 0, tlvs };
    }
    const udh = concatUdh(mode === 'udh8' ? 8 : 16, ref, total, i + 1);
    return { shortMessage: Buffer.concat([udh, r.bytes]), esmClass: EsmClass.Udhi, tlvs: [] };
  });
  return { kind: 'ok', parts };
}
