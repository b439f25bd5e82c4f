/**
 * Message text ↔ short_message octets for the data_coding values we send (SMPP 3.4 §5.2.19).
 * A character a coding cannot carry is an error naming it, never a silent '?': the sender
 * would be billed for a message the recipient cannot read.
 */
import { fromGsm7Septets, toGsm7Septets } from '../../../domain/gsm7.js';
import { isGsm7 } from '../../../domain/parts.js';

export const DataCoding = {
  /** "SMSC default alphabet": we take it as GSM 03.38, one septet per octet, unpacked. */
  Gsm7: 0,
  Latin1: 3,
  /** UCS-2 big-endian; characters beyond the BMP go as surrogate pairs (UTF-16BE). */
  Ucs2: 8,
} as const;
export type TextDataCoding = (typeof DataCoding)[keyof typeof DataCoding];

export type EncodeTextResult =
  | { kind: 'ok'; bytes: Buffer }
  /** `char` is the whole code point; `index` its UTF-16 offset in the text. */
  | { kind: 'unencodable'; dataCoding: number; index: number; char: string }
  | { kind: 'unsupported-coding'; dataCoding: number };

export function encodeText(text: string, dataCoding: number): EncodeTextResult {
  switch (dataCoding) {
    case DataCoding.Gsm7: {
      const r = toGsm7Septets(text);
      if (r.kind === 'ok') return { kind: 'ok', bytes: Buffer.from(r.septets) };
      return { kind: 'unencodable', dataCoding, index: r.index, char: r.char };
    }
    case DataCoding.Latin1: {
      const bad = /[^\0-\u00ff]/u.exec(text);
      if (bad) return { kind: 'unencodable', dataCoding, index: bad.index, char: bad[0] };
      return { kind: 'ok', bytes: Buffer.from(text, 'latin1') };
    }
    case DataCoding.Ucs2: {
      // A lone surrogate is not a character; a handset would show it as garbage.
      const bad = /\p{Surrogate}/u.exec(text);
      if (bad) return { kind: 'unencodable', dataCoding, index: bad.index, char: bad[0] };
      return { kind: 'ok', bytes: Buffer.from(text, 'utf16le').swap16() };
    }
    default:
      return { kind: 'unsupported-coding', dataCoding };
  }
}

export type DecodeProblem =
  | { kind: 'unsupported-coding'; dataCoding: number }
  /** An octet above 0x7F in GSM text; shown as U+FFFD. */
  | { kind: 'invalid-octet'; offset: number }
  /** UCS-2 with an odd number of octets; the last one is dropped. */
  | { kind: 'odd-length' };

export interface DecodedText {
  text: string;
  /** Null when the octets decoded cleanly; otherwise what to log next to the (best-effort) text. */
  problem: DecodeProblem | null;
}

/** Never fails: inbound text is stored even when the SMSC sends a coding we do not know. */
export function decodeText(bytes: Uint8Array, dataCoding: number): DecodedText {
  switch (dataCoding) {
    case DataCoding.Gsm7: {
      const { text, badOffset } = fromGsm7Septets(bytes);
      return { text, problem: badOffset === null ? null : { kind: 'invalid-octet', offset: badOffset } };
    }
    case DataCoding.Latin1:
      return { text: Buffer.from(bytes).toString('latin1'), problem: null };
    case DataCoding.Ucs2: {
      const even = Buffer.from(bytes.subarray(0, bytes.length & ~1));
      const text = even.swap16().toString('utf16le');
      return { text, problem: bytes.length % 2 === 0 ? null : { kind: 'odd-length' } };
    }
    default:
      return {
        text: Buffer.from(bytes).toString('latin1'),
        problem: { kind: 'unsupported-coding', dataCoding },
      };
  }
}

/**
 * GSM-7 text goes as `preferred` (some SMSCs want Latin-1 for plain text) when that coding
 * can carry it, else as GSM; anything else goes as UCS-2. This is the coding planParts bills.
 */
export function chooseDataCoding(
  text: string,
  preferred: typeof DataCoding.Gsm7 | typeof DataCoding.Latin1 = DataCoding.Gsm7,
): TextDataCoding {
  if (!isGsm7(text)) return DataCoding.Ucs2;
  if (preferred === DataCoding.Latin1 && encodeText(text, DataCoding.Latin1).kind === 'ok') return preferred;
  return DataCoding.Gsm7;
}
