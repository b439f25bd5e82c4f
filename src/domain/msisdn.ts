/**
 * Phone numbers and sender ids (decisions §5).
 *
 * An msisdn is accepted when its country calling code exists and its national number has a
 * *possible* length for that code. Validity (`isValid`) is deliberately not checked: operators
 * open ranges faster than the metadata follows, and reserved test ranges (+447700900123)
 * must pass.
 *
 * Metadata: `libphonenumber-js/min`. Possible lengths are the general-description lengths,
 * which min and max carry identically (300k random numbers over every calling code gave the
 * same `isPossiblePhoneNumber` answer with both); max only adds per-type patterns we never
 * use, at twice the size.
 */
import {
  Metadata,
  getCountries,
  getCountryCallingCode,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/min';

/** E.164: at most 15 digits and never a leading 0; the length table decides the rest. */
const E164_DIGITS = /^[1-9]\d{1,14}$/;

const ALPHANUMERIC_SENDER = /^(?=.*[A-Za-z])[A-Za-z0-9](?:[A-Za-z0-9 ]{0,9}[A-Za-z0-9])?$/;

/**
 * National-number lengths per geographic calling code. `all` holds lengths possible in every
 * country sharing the code, `any` those possible in at least one (+1: CA also has 7).
 */
interface CallingCodeLengths {
  readonly all: ReadonlySet<number>;
  readonly any: ReadonlySet<number>;
}

/**
 * Built once from the documented Metadata API (countries → calling code → possible lengths).
 * Non-geographic codes (+800, +882 …) are not listed by country and take the slow path.
 */
const LENGTHS_BY_CALLING_CODE: ReadonlyMap<string, CallingCodeLengths> = buildLengthTable();

function buildLengthTable(): Map<string, CallingCodeLengths> {
  const perCode = new Map<string, number[][]>();
  const metadata = new Metadata();
  for (const country of getCountries()) {
    metadata.selectNumberingPlan(country);
    const lengths = metadata.numberingPlan?.possibleLengths() ?? [];
    const code = getCountryCallingCode(country);
    perCode.set(code, [...(perCode.get(code) ?? []), lengths]);
  }
  const table = new Map<string, CallingCodeLengths>();
  for (const [code, lists] of perCode) {
    const any = new Set(lists.flat());
    const all = new Set([...any].filter((n) => lists.every((l) => l.includes(n))));
    table.set(code, { all, any });
  }
  return table;
}

/**
 * Per-number libphonenumber parse costs 6–10 µs; bulk sends check 10,000 recipients per
 * request, so the common case is answered from the length table (~0.1 µs) and only the
 * cases that table cannot settle go to the library:
 * - a length possible in some but not all countries sharing the code (+1 7 digits, +44 9):
 *   the library decides which country the number belongs to;
 * - a national number starting with 0, usually a trunk prefix typed in ("+44 07700…"): the
 *   library strips it, and we refuse any number it had to rewrite rather than store digits
 *   the client did not send;
 * - a calling code the table does not list (non-geographic or unknown).
 * Two deliberate differences from the library alone: numbers over E.164's 15 digits are
 * refused (the metadata allows a few longer ones), and digits the library would rewrite
 * through a non-zero prefix (carrier codes such as +55 90…) pass as given when their length
 * is possible. test/domain/msisdn.test.ts checks that nothing else differs.
 */
export function normaliseMsisdn(input: string): string | null {
  // An unencoded '+' in a query string arrives as a space.
  const digits = input.startsWith('+') || input.startsWith(' ') ? input.slice(1) : input;
  if (!E164_DIGITS.test(digits)) return null;
  // Calling codes are prefix-free, so the first 1–3 digit prefix that is listed is the code.
  for (let codeLength = 1; codeLength <= 3; codeLength++) {
    const lengths = LENGTHS_BY_CALLING_CODE.get(digits.slice(0, codeLength));
    if (lengths === undefined) continue;
    const nationalLength = digits.length - codeLength;
    if (!lengths.any.has(nationalLength)) return null;
    if (lengths.all.has(nationalLength) && digits[codeLength] !== '0') return '+' + digits;
    return checkWithLibrary(digits);
  }
  return checkWithLibrary(digits);
}

function checkWithLibrary(digits: string): string | null {
  const e164 = '+' + digits;
  const parsed = parsePhoneNumberFromString(e164);
  return parsed !== undefined && parsed.number === e164 && parsed.isPossible() ? e164 : null;
}

/** 1–11 characters of A–Z a–z 0–9 space, at least one letter (so an all-digit string is an msisdn, not an alphanumeric id); no leading/trailing space. */
export function isAlphanumericSender(input: string): boolean {
  return ALPHANUMERIC_SENDER.test(input);
}

/** msisdn (normalised, with +) or alphanumeric id as given; null when neither. */
export function normaliseSender(input: string): string | null {
  return isAlphanumericSender(input) ? input : normaliseMsisdn(input);
}
