/** The text of an inbound short message, whatever data_coding the SMSC labelled it with. */
import {
  DataCoding,
  decodeText,
  EsmClass,
  getTlv,
  readUdh,
  type DecodedText,
  type Tlv,
} from '../pdu/index.js';

/**
 * data_coding values that carry text in a coding decodeText knows under another number:
 * IA5 (1) is ASCII, a subset of Latin-1; 0xF0–0xF3 is GSM 7-bit with a message class.
 */
function textCoding(dataCoding: number): number {
  if (dataCoding === 1) return DataCoding.Latin1;
  if ((dataCoding & 0xf4) === 0xf0) return DataCoding.Gsm7;
  // General data coding group (00xx xxxx) with UCS-2 in bits 3–2, e.g. 0x18 (class 0).
  if ((dataCoding & 0xc0) === 0 && (dataCoding & 0x0c) === 0x08 && dataCoding > 8) return DataCoding.Ucs2;
  return dataCoding;
}

export function decodeInbound(octets: Buffer, dataCoding: number): DecodedText {
  return decodeText(octets, textCoding(dataCoding));
}

/** The user data of a deliver_sm / data_sm without its UDH (message_payload wins when present). */
export function userData(pdu: { esmClass: number; shortMessage?: Buffer; tlvs?: Tlv[] }): Buffer {
  const octets = getTlv(pdu.tlvs, 'message_payload') ?? pdu.shortMessage ?? Buffer.alloc(0);
  if ((pdu.esmClass & EsmClass.Udhi) === 0) return octets;
  return readUdh(octets)?.body ?? octets;
}
