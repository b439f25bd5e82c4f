/**
 * Optional parameters (SMPP 3.4 §3.2.4.1, §5.3): tag, length, value. Every TLV is kept as raw
 * octets, so an unknown tag survives a decode → encode unchanged; tlv-params.ts reads the
 * ones we understand.
 */
import { MalformedPdu, PduEncodeError, type Cursor, type Writer } from './octets.js';
import { CommandStatus } from './status.js';

export interface Tlv {
  tag: number;
  value: Buffer;
}

/** Reads TLVs until the body ends. */
export function readTlvs(c: Cursor): Tlv[] {
  const tlvs: Tlv[] = [];
  while (c.remaining > 0) {
    if (c.remaining < 4) {
      throw new MalformedPdu(
        `${c.remaining} stray octet(s) after the last TLV`,
        CommandStatus.ESME_RINVOPTPARSTREAM,
      );
    }
    const tag = c.u16('tlv tag');
    const length = c.u16('tlv length');
    if (length > c.remaining) {
      throw new MalformedPdu(
        `TLV 0x${tag.toString(16).padStart(4, '0')} claims ${length} octets, ${c.remaining} left`,
        CommandStatus.ESME_RINVPARLEN,
      );
    }
    tlvs.push({ tag, value: c.bytes(length, 'tlv value') });
  }
  return tlvs;
}

export function writeTlvs(w: Writer, tlvs: readonly Tlv[]): void {
  for (const { tag, value } of tlvs) {
    if (value.length > 0xffff)
      throw new PduEncodeError(`tlv 0x${tag.toString(16)}`, 'value over 65535 octets');
    w.u16(tag, 'tlv tag');
    w.u16(value.length, 'tlv length');
    w.bytes(value);
  }
}

export function findTlv(tlvs: readonly Tlv[] | undefined, tag: number): Buffer | undefined {
  if (tlvs === undefined) return undefined;
  // A loop rather than find(): this runs several times for every receipt.
  for (const t of tlvs) if (t.tag === tag) return t.value;
  return undefined;
}
