/**
 * Smart encoding (decisions §19): characters that word processors and phone keyboards put in
 * for plain ones (curly quotes, long dashes, the ellipsis, unusual spaces) push a whole body out
 * of the GSM-7 alphabet into UCS-2, where a part holds 70 characters instead of 160. Each has
 * a GSM-7 look-alike; they are replaced only when that makes the whole body GSM-7, since a body
 * that stays UCS-2 anyway (an emoji, Cyrillic) gains nothing and would only read worse.
 * The table is printed in the README ("Smart encoding"): keep the two in step.
 */
import { isGsm7 } from './parts.js';

/** Each character and what replaces it, in the README's order. */
export const SMART_REPLACEMENTS: readonly (readonly [string, string, string])[] = [
  // [characters, replacement, what they are]
  ['\u2018\u2019\u201A\u201B\u2032\u00B4\u0060', "'", 'single quotes, prime, acute accent, grave accent'],
  ['\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB', '"', 'double quotes, double prime, guillemets'],
  ['\u2039', '<', 'single left-pointing angle quote'],
  ['\u203A', '>', 'single right-pointing angle quote'],
  ['\u2010\u2011\u2012\u2013\u2014\u2015\u2212', '-', 'hyphens, figure dash, en and em dashes, minus sign'],
  ['\u2026', '...', 'ellipsis'],
  ['\u02C6', '^', 'modifier circumflex'],
  ['\u02DC', '~', 'small tilde'],
  [
    '\u00A0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000',
    ' ',
    'no-break, en, em, thin, hair and other spaces',
  ],
  ['\u200B\u200C\u200D\u2060\uFEFF', '', 'zero-width spaces and joiners, byte order mark (removed)'],
  ['\u2022', '*', 'bullet'],
];

const TABLE: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [characters, replacement] of SMART_REPLACEMENTS) {
    for (const c of characters) map.set(c, replacement);
  }
  // Fullwidth forms of ASCII (U+FF01–FF5E), as CJK keyboards type them.
  for (let code = 0xff01; code <= 0xff5e; code++) {
    const ascii = String.fromCharCode(code - 0xfee0);
    map.set(String.fromCharCode(code), map.get(ascii) ?? ascii);
  }
  return map;
})();

/** `body` with look-alikes replaced when that makes it GSM-7; otherwise `body` unchanged. */
export function smartEncode(body: string): string {
  if (isGsm7(body)) return body;
  let out = '';
  let replaced = false;
  for (const c of body) {
    const r = TABLE.get(c);
    if (r === undefined) out += c;
    else {
      out += r;
      replaced = true;
    }
  }
  return replaced && isGsm7(out) ? out : body;
}
