/**
 * How many SMS parts a body needs (decisions §5), and where it is cut.
 *
 * GSM-7: 1 part up to 160 septets, else ceil(n / 153). UCS-2: 1 part up to 70 UTF-16 units,
 * else parts of 67 units, "never splitting a surrogate pair": a pair that does not fit moves
 * whole to the next part, so 67 emoji (134 units) are 3 parts of 33 + 33 + 1, not ceil(134 / 67)
 * = 2. That is the count the carrier link sends and the count billed. A carrier link also never
 * cuts between ESC and its extension character (the handset would show garbage at the seam);
 * decisions §5 bills GSM-7 by the formula regardless, so there `planParts` can cut one part more
 * than `countParts` bills.
 */
import { gsm7Cost } from './gsm7.js';

export type Encoding = 'gsm7' | 'ucs2';

export interface PartPlan {
  encoding: Encoding;
  /** Septets (GSM-7, extension characters count 2) or UTF-16 code units (UCS-2) in total. */
  units: number;
  /** The text of each part; joined they give back the input. */
  parts: string[];
}

export interface PartLimits {
  /** Most units a message may have and still go as one part (no UDH). */
  single: number;
  /** Most units per part of a concatenated message (the UDH takes the rest). */
  multi: number;
}

/** 140 octets less a 6-octet UDH (8-bit reference): 153 septets or 67 UCS-2 units. */
export const PART_LIMITS: Readonly<Record<Encoding, PartLimits>> = {
  gsm7: { single: 160, multi: 153 },
  ucs2: { single: 70, multi: 67 },
};

/** Septets of a GSM-7 body, or -1 as soon as a character is outside the alphabet. */
function scanSeptets(text: string): number {
  let septets = 0;
  for (let i = 0; i < text.length; i++) {
    const cost = gsm7Cost(text.charCodeAt(i));
    if (cost === 0) return -1;
    septets += cost;
  }
  return septets;
}

export function isGsm7(text: string): boolean {
  return scanSeptets(text) >= 0;
}

/** Septet count of a GSM-7 body; throws RangeError for text that is not GSM-7 (check isGsm7). */
export function gsm7Septets(text: string): number {
  const septets = scanSeptets(text);
  if (septets < 0) throw new RangeError('text is not in the GSM 03.38 default alphabet');
  return septets;
}

function isSurrogatePair(text: string, i: number): boolean {
  const hi = text.charCodeAt(i);
  if (hi < 0xd800 || hi > 0xdbff) return false;
  const lo = text.charCodeAt(i + 1);
  return lo >= 0xdc00 && lo <= 0xdfff;
}

/**
 * Greedy fill: walks the symbols (one GSM character, or one UCS-2 code point) and calls `cut`
 * with the UTF-16 index at which each part after the first begins. Returns the part count.
 */
function fill(text: string, encoding: Encoding, perPart: number, cut?: (index: number) => void): number {
  let parts = 1;
  let used = 0;
  for (let i = 0; i < text.length;) {
    // In UCS-2 a symbol's width in the string equals its cost; in GSM-7 the width is always 1.
    const cost = encoding === 'gsm7' ? gsm7Cost(text.charCodeAt(i)) : isSurrogatePair(text, i) ? 2 : 1;
    if (used + cost > perPart) {
      parts++;
      used = 0;
      cut?.(i);
    }
    used += cost;
    i += encoding === 'gsm7' ? 1 : cost;
  }
  return parts;
}

function measure(text: string): { encoding: Encoding; units: number } {
  const septets = scanSeptets(text);
  return septets >= 0 ? { encoding: 'gsm7', units: septets } : { encoding: 'ucs2', units: text.length };
}

function cut(text: string, encoding: Encoding, units: number, { single, multi }: PartLimits): string[] {
  if (units <= single) return [text];
  const parts: string[] = [];
  let start = 0;
  fill(text, encoding, multi, (index) => {
    parts.push(text.slice(start, index));
    start = index;
  });
  parts.push(text.slice(start));
  return parts;
}

/**
 * Cuts `text` as `encoding` would carry it, with other limits than planParts when the SMPP
 * codec needs them (a 7-octet UDH; UCS-2 forced on GSM-7 text). For 'gsm7' the text must be
 * GSM-7 (RangeError otherwise); 'ucs2' walks UTF-16 units, so any one-unit-per-octet text fits.
 */
export function cutText(
  text: string,
  encoding: Encoding,
  limits: PartLimits = PART_LIMITS[encoding],
): string[] {
  return cut(text, encoding, encoding === 'gsm7' ? gsm7Septets(text) : text.length, limits);
}

export function planParts(text: string): PartPlan {
  const { encoding, units } = measure(text);
  return { encoding, units, parts: cut(text, encoding, units, PART_LIMITS[encoding]) };
}

/**
 * The billed part count of decisions §5 (`num_parts`, credits): one scan, no arrays, since it
 * runs on every POST. planParts(text).parts.length is the same for UCS-2 and, at a GSM-7
 * escape seam, can be one more.
 */
export function countParts(text: string): { encoding: Encoding; numParts: number } {
  const { encoding, units } = measure(text);
  const { single, multi } = PART_LIMITS[encoding];
  if (units <= single) return { encoding, numParts: 1 };
  return { encoding, numParts: encoding === 'gsm7' ? Math.ceil(units / multi) : fill(text, encoding, multi) };
}
