/**
 * What the send form shows while a message is typed: encoding, characters, parts and cost. It
 * runs the server's own rules (src/domain), bundled in, so the form and the API cannot disagree.
 */
import { gsm7Cost } from '../../src/domain/gsm7.js';
import { normaliseMsisdn } from '../../src/domain/msisdn.js';
import { countParts, PART_LIMITS, type Encoding } from '../../src/domain/parts.js';

export interface BodyFacts {
  readonly encoding: Encoding;
  /** Characters as a person counts them (code points). */
  readonly characters: number;
  /** Septets (GSM-7, extension characters count 2) or UTF-16 units (UCS-2). */
  readonly units: number;
  readonly parts: number;
  /** Units one part holds at the current length. */
  readonly perPart: number;
  /** Units left before another part is needed. */
  readonly remaining: number;
  /** The distinct characters outside GSM-7, which make the message UCS-2, in order of appearance. */
  readonly forcing: readonly string[];
  /** GSM-7 characters of the extension table, which cost two septets each. */
  readonly doubled: readonly string[];
}

export function bodyFacts(body: string): BodyFacts {
  const forcing: string[] = [];
  const doubled: string[] = [];
  let septets = 0;
  for (const char of body) {
    // A character outside the BMP is never GSM-7; gsm7Cost of its first unit says 0.
    const cost = char.length === 1 ? gsm7Cost(char.charCodeAt(0)) : 0;
    septets += cost;
    if (cost === 0 && !forcing.includes(char)) forcing.push(char);
    if (cost === 2 && !doubled.includes(char)) doubled.push(char);
  }
  const { encoding, numParts } = countParts(body);
  const units = encoding === 'gsm7' ? septets : body.length;
  const limits = PART_LIMITS[encoding];
  const perPart = numParts === 1 ? limits.single : limits.multi;
  return {
    encoding,
    characters: [...body].length,
    units,
    parts: body === '' ? 0 : numParts,
    perPart,
    remaining: numParts === 1 ? limits.single - units : numParts * limits.multi - units,
    forcing,
    doubled,
  };
}

export interface RecipientFacts {
  /** Unique numbers, normalised with '+': the API sends duplicates once. */
  readonly valid: readonly string[];
  readonly invalid: readonly string[];
}

/** Numbers separated by commas, semicolons, spaces or new lines. */
export function recipientFacts(text: string): RecipientFacts {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const raw of text.split(/[\s,;]+/)) {
    if (raw === '') continue;
    const msisdn = normaliseMsisdn(raw);
    if (msisdn === null) invalid.push(raw);
    else if (!valid.includes(msisdn)) valid.push(msisdn);
  }
  return { valid, invalid };
}

/** Credits a message costs (decisions §7): parts × recipients. */
export function creditsNeeded(body: string, recipients: number): number {
  return bodyFacts(body).parts * recipients;
}

/** How a character is named in the list of those forcing UCS-2. */
export function describeCharacter(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (/\s/.test(char)) return `${hex} (a space character)`;
  return `${char} ${hex}`;
}
