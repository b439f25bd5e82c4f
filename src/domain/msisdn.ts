/**
 * Phone numbers and sender ids (decisions §5).
 *
 * An msisdn is E.164 digits with an optional leading '+' (decisions §5): a country calling code
 * and national number of 7 to 15 digits in all, never starting with 0. No per-country number
 * plan is checked: the contract accepts any such digits (+1234567890 included), and number
 * plans change faster than a library's metadata follows.
 */

/** 7–15 digits: below 7 no country's numbers go (+683 4xxx, Niue, is the shortest). */
const E164_DIGITS = /^[1-9]\d{6,14}$/;

const ALPHANUMERIC_SENDER = /^(?=.*[A-Za-z])[A-Za-z0-9](?:[A-Za-z0-9 ]{0,9}[A-Za-z0-9])?$/;

/** The msisdn with '+', or null when `input` is not E.164 digits. */
export function normaliseMsisdn(input: string): string | null {
  // An unencoded '+' in a query string arrives as a space.
  const digits = input.startsWith('+') || input.startsWith(' ') ? input.slice(1) : input;
  return E164_DIGITS.test(digits) ? '+' + digits : null;
}

/** 1–11 characters of A–Z a–z 0–9 space, at least one letter (so an all-digit string is an msisdn, not an alphanumeric id); no leading/trailing space. */
export function isAlphanumericSender(input: string): boolean {
  return ALPHANUMERIC_SENDER.test(input);
}

/** msisdn (normalised, with +) or alphanumeric id as given; null when neither. */
export function normaliseSender(input: string): string | null {
  return isAlphanumericSender(input) ? input : normaliseMsisdn(input);
}
