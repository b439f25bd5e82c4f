/**
 * The GSM 03.38 (3GPP TS 23.038) default alphabet and its extension table. Part counting
 * (parts.ts) and the SMPP codec's data_coding 0 both read these tables, so what we bill and
 * what we put on the wire cannot drift apart.
 */

/** Escape to the extension table: an extension character costs ESC + its code, two septets. */
export const GSM7_ESC = 0x1b;

/**
 * Index = GSM code point. Position 0x1B holds ESC, which is never a character of a message:
 * the lookup below leaves it out so a U+001B in a body is not mistaken for GSM text.
 */
export const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅå' +
  'Δ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ' +
  ' !"#¤%&\'()*+,-./' +
  '0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNO' +
  'PQRSTUVWXYZÄÖÑÜ§' +
  '¿abcdefghijklmno' +
  'pqrstuvwxyzäöñüà';

/** Extension table: code after ESC → character. */
export const GSM7_EXTENSION: ReadonlyMap<number, string> = new Map([
  [0x0a, '\f'],
  [0x14, '^'],
  [0x28, '{'],
  [0x29, '}'],
  [0x2f, '\\'],
  [0x3c, '['],
  [0x3d, '~'],
  [0x3e, ']'],
  [0x40, '|'],
  [0x65, '€'],
]);

// Keyed by UTF-16 code unit: every GSM character is in the BMP, so a surrogate is never GSM.
const basicCode = new Map<number, number>();
for (let code = 0; code < GSM7_BASIC.length; code++) {
  if (code !== GSM7_ESC) basicCode.set(GSM7_BASIC.charCodeAt(code), code);
}
const extensionCode = new Map<number, number>();
for (const [code, char] of GSM7_EXTENSION) extensionCode.set(char.charCodeAt(0), code);

/** Septets one UTF-16 code unit costs: 1 (basic), 2 (ESC + extension), 0 (not in the alphabet). */
export function gsm7Cost(codeUnit: number): 0 | 1 | 2 {
  if (basicCode.has(codeUnit)) return 1;
  return extensionCode.has(codeUnit) ? 2 : 0;
}

export type SeptetsResult =
  | { kind: 'ok'; septets: Uint8Array }
  /** `char` is the whole code point (a surrogate pair stays together), `index` its UTF-16 offset. */
  | { kind: 'unencodable'; index: number; char: string };

/** Text → septets, one per octet (unpacked), extension characters as ESC + code. */
export function toGsm7Septets(text: string): SeptetsResult {
  const out = new Uint8Array(text.length * 2);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const basic = basicCode.get(unit);
    if (basic !== undefined) {
      out[n++] = basic;
      continue;
    }
    const ext = extensionCode.get(unit);
    if (ext === undefined) {
      return { kind: 'unencodable', index: i, char: String.fromCodePoint(text.codePointAt(i) ?? unit) };
    }
    out[n++] = GSM7_ESC;
    out[n++] = ext;
  }
  return { kind: 'ok', septets: out.subarray(0, n) };
}

export interface SeptetsDecoded {
  text: string;
  /** Offset of the first octet above 0x7F (not a septet), shown as U+FFFD; null when none. */
  badOffset: number | null;
}

/**
 * Septets → text. An ESC before a code the extension table lacks shows the basic character,
 * as TS 23.038 tells a handset to; a trailing ESC is dropped.
 */
export function fromGsm7Septets(septets: Uint8Array): SeptetsDecoded {
  let text = '';
  let badOffset: number | null = null;
  for (let i = 0; i < septets.length; i++) {
    let code = septets[i] ?? 0;
    if (code === GSM7_ESC) {
      if (i + 1 >= septets.length) break;
      code = septets[++i] ?? 0;
      const ext = GSM7_EXTENSION.get(code);
      if (ext !== undefined) {
        text += ext;
        continue;
      }
    }
    if (code > 0x7f) {
      badOffset ??= i;
      text += '\ufffd';
    } else {
      // ESC ESC announces a further table nobody implements; a space is what handsets show.
      text += code === GSM7_ESC ? ' ' : (GSM7_BASIC[code] ?? '');
    }
  }
  return { text, badOffset };
}
