import fc from 'fast-check';
import { getCountries, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { describe, expect, it } from 'vitest';
import { isAlphanumericSender, normaliseMsisdn, normaliseSender } from '../../src/domain/msisdn.js';

describe('normaliseMsisdn', () => {
  it.each([
    ['+447700900123', '+447700900123'],
    ['447700900123', '+447700900123'],
    [' 447700900123', '+447700900123'],
    ['+61491570156', '+61491570156'],
    ['+12025550123', '+12025550123'],
    ['12025550123', '+12025550123'],
    ['+4915123456789', '+4915123456789'],
    ['+33612345678', '+33612345678'],
    ['+8613812345678', '+8613812345678'],
    // Leading 0 in the national number is real in Italy and Côte d'Ivoire.
    ['+390612345678', '+390612345678'],
    ['+2250712345678', '+2250712345678'],
    // Non-geographic calling codes go through the library.
    ['+80012345678', '+80012345678'],
  ])('accepts %j as %j', (input, expected) => {
    expect(normaliseMsisdn(input)).toBe(expected);
  });

  it.each([
    ['', 'empty'],
    ['+', 'only a plus'],
    [' ', 'only a space'],
    ['+44770090012a', 'a letter'],
    ['abc', 'letters'],
    ['+0447700900123', 'leading 0 after +'],
    ['0447700900123', 'leading 0'],
    ['+44 7700 900123', 'inner spaces'],
    ['+44-7700-900123', 'dashes'],
    ['+1 (202) 555-0123', 'brackets'],
    ['  447700900123', 'two leading spaces'],
    [' +447700900123', 'space and plus'],
    ['++447700900123', 'two pluses'],
    ['+447700900123 ', 'trailing space'],
    ['+12025550123;ext=1', 'an extension'],
    ['+1202555012', 'too short for +1'],
    ['+120255501234', 'too long for +1'],
    ['+4477009001234', 'too long for +44'],
    ['+1234567890123456', 'more than 15 digits'],
    ['+999123456789', 'unknown calling code +999'],
    ['+8612345', 'too short for +86'],
    ['+4407700900123', 'trunk prefix after the calling code'],
    ['+٤٤٧٧٠٠٩٠٠١٢٣', 'non-ASCII digits'],
  ])('rejects %j (%s)', (input) => {
    expect(normaliseMsisdn(input)).toBeNull();
  });

  it('settles lengths possible in only some countries of a shared code through the library', () => {
    // +44 9-digit national numbers exist in GB but not in JE/IM; the library decides.
    expect(normaliseMsisdn('+44845464000')).toBe('+44845464000');
  });

  /** The contract the fast path must keep: libphonenumber's own answer, never rewriting. */
  function libraryAnswer(e164: string): string | null {
    const parsed = parsePhoneNumberFromString(e164);
    return parsed !== undefined && parsed.number === e164 && parsed.isPossible() ? e164 : null;
  }

  it('agrees with libphonenumber except where the library rewrites non-zero prefixes', () => {
    const codes = [...new Set(getCountries().map((c) => getCountryCallingCode(c)))];
    const callingCode = fc.oneof(
      fc.constantFrom(...codes),
      fc.constantFrom('800', '882', '883', '999', '99'),
    );
    // Uniform lengths: fast-check's default bias towards short strings would rarely reach
    // the possible lengths of most codes.
    const nationalNumber = fc
      .integer({ min: 1, max: 14 })
      .chain((n) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n }));
    fc.assert(
      fc.property(callingCode, nationalNumber, (code, national) => {
        const e164 = '+' + code + national;
        const ours = normaliseMsisdn(e164);
        const library = libraryAnswer(e164);
        if (ours === library) return;
        // E.164 caps numbers at 15 digits; the library's metadata allows a few longer ones.
        if (e164.length > 16) {
          expect(ours).toBeNull();
          return;
        }
        // Otherwise the only allowed difference: we accept digits the library would have
        // rewritten (carrier codes, non-zero trunk prefixes) when possible as given.
        expect(ours).toBe(e164);
        expect(national.startsWith('0')).toBe(false);
        expect(parsePhoneNumberFromString(e164)?.number).not.toBe(e164);
      }),
      { numRuns: 50_000 },
    );
  });

  it('is idempotent and always returns + and digits', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'+ 0123456789'), maxLength: 17 }), (input) => {
        const once = normaliseMsisdn(input);
        if (once === null) return;
        expect(once).toMatch(/^\+[1-9]\d{1,14}$/);
        expect(normaliseMsisdn(once)).toBe(once);
      }),
    );
  });
});

describe('isAlphanumericSender', () => {
  it.each(['A', 'Acme', 'ACME Ltd', 'Shop24', '24Shop', 'abcdefghijk', 'a b c d e f'])(
    'accepts %j',
    (input) => {
      expect(isAlphanumericSender(input)).toBe(true);
    },
  );

  it.each([
    ['', 'empty'],
    ['abcdefghijkl', '12 characters'],
    ['12345', 'no letter'],
    [' Acme', 'leading space'],
    ['Acme ', 'trailing space'],
    ['Acme-Ltd', 'a dash'],
    ['Acmé', 'a non-ASCII letter'],
    ['+Acme', 'a plus'],
    ['Ac\nme', 'a newline'],
  ])('rejects %j (%s)', (input) => {
    expect(isAlphanumericSender(input)).toBe(false);
  });
});

describe('normaliseSender', () => {
  it('returns an alphanumeric id as given', () => {
    expect(normaliseSender('Acme Ltd')).toBe('Acme Ltd');
  });

  it('normalises an msisdn, including an all-digit one', () => {
    expect(normaliseSender('447700900123')).toBe('+447700900123');
    expect(normaliseSender(' 447700900123')).toBe('+447700900123');
  });

  it('returns null for neither', () => {
    expect(normaliseSender('12345')).toBeNull();
    expect(normaliseSender('Acme-Ltd')).toBeNull();
    expect(normaliseSender('')).toBeNull();
  });
});
