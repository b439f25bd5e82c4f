import fc from 'fast-check';
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
    ['+80012345678', '+80012345678'],
    // E.164 digits, whatever a country's number plan says (decisions §5).
    ['+1234567890', '+1234567890'],
    ['+4412345678', '+4412345678'],
    ['+6834001', '+6834001'],
    ['+123456789012345', '+123456789012345'],
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
    ['+1234567890123456', 'more than 15 digits'],
    ['+123456', 'fewer than 7 digits'],
    ['12', 'two digits'],
    ['+٤٤٧٧٠٠٩٠٠١٢٣', 'non-ASCII digits'],
  ])('rejects %j (%s)', (input) => {
    expect(normaliseMsisdn(input)).toBeNull();
  });

  it('is idempotent and always returns + and digits', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'+ 0123456789'), maxLength: 17 }), (input) => {
        const once = normaliseMsisdn(input);
        if (once === null) return;
        expect(once).toMatch(/^\+[1-9]\d{6,14}$/);
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
