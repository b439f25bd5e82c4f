import { describe, expect, it } from 'vitest';
import { countParts, isGsm7 } from '../../src/domain/parts.js';
import { SMART_REPLACEMENTS, smartEncode } from '../../src/domain/smart-encoding.js';

describe('smart encoding (decisions §19)', () => {
  it('replaces curly quotes, dashes, the ellipsis and odd spaces by GSM-7 look-alikes', () => {
    expect(smartEncode('\u201CHi\u201D \u2018there\u2019 \u2013 wait\u2026\u00A0ok\u200B')).toBe(
      '"Hi" \'there\' - wait... ok',
    );
    expect(smartEncode('\uFF21\uFF22\uFF23\uFF11')).toBe('ABC1');
  });

  it('maps every character of the table to GSM-7', () => {
    for (const [characters, replacement] of SMART_REPLACEMENTS) {
      for (const c of characters) expect(isGsm7(smartEncode(`a${c}b`)), c).toBe(true);
      expect(isGsm7(replacement)).toBe(true);
    }
  });

  it('leaves a body alone when it stays UCS-2 anyway, or is GSM-7 already', () => {
    expect(smartEncode('\u201CПривет\u201D')).toBe('\u201CПривет\u201D');
    expect(smartEncode('ok \u2019 \u{1F600}')).toBe('ok \u2019 \u{1F600}');
    expect(smartEncode('plain [text] €')).toBe('plain [text] €');
  });

  it('turns a 1-part UCS-2 body of 70/71 units into GSM-7, and 160/161 characters at the part boundary', () => {
    const ucs = (n: number) => '\u2019'.repeat(1) + 'a'.repeat(n - 1);
    expect(countParts(ucs(70))).toEqual({ encoding: 'ucs2', numParts: 1 });
    expect(countParts(ucs(71))).toEqual({ encoding: 'ucs2', numParts: 2 });
    expect(countParts(smartEncode(ucs(71)))).toEqual({ encoding: 'gsm7', numParts: 1 });
    expect(countParts(smartEncode(ucs(160)))).toEqual({ encoding: 'gsm7', numParts: 1 });
    expect(countParts(smartEncode(ucs(161)))).toEqual({ encoding: 'gsm7', numParts: 2 });
    // An ellipsis becomes three characters: 158 + 1 fits, 159 + 1 does not.
    expect(countParts(smartEncode('a'.repeat(157) + '\u2026'))).toEqual({ encoding: 'gsm7', numParts: 1 });
    expect(countParts(smartEncode('a'.repeat(158) + '\u2026'))).toEqual({ encoding: 'gsm7', numParts: 2 });
  });
});
