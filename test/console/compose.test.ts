import { describe, expect, it } from 'vitest';
import { bodyFacts, creditsNeeded, describeCharacter, recipientFacts } from '../../console/src/compose.js';
import { appendPoint, ratesBetween } from '../../console/src/rates.js';
import { countParts } from '../../src/domain/parts.js';

describe('what the send form shows', () => {
  it('counts GSM-7 septets, with extension characters as two', () => {
    expect(bodyFacts('a'.repeat(160))).toMatchObject({
      encoding: 'gsm7',
      units: 160,
      parts: 1,
      remaining: 0,
    });
    expect(bodyFacts('a'.repeat(161))).toMatchObject({
      encoding: 'gsm7',
      units: 161,
      parts: 2,
      perPart: 153,
    });
    const euro = bodyFacts('€'.repeat(80));
    expect(euro).toMatchObject({ encoding: 'gsm7', characters: 80, units: 160, parts: 1, doubled: ['€'] });
    expect(bodyFacts('€'.repeat(81)).parts).toBe(2);
  });

  it('names the characters that make a message UCS-2, each once', () => {
    const facts = bodyFacts('Hi “there” — “you”');
    expect(facts).toMatchObject({ encoding: 'ucs2', characters: 18, units: 18, parts: 1 });
    expect(facts.forcing).toEqual(['“', '”', '—']);
    expect(bodyFacts('😀 ok')).toMatchObject({ encoding: 'ucs2', characters: 4, units: 5, forcing: ['😀'] });
    expect(describeCharacter('\u00a0')).toBe('U+00A0 (a space character)');
    expect(describeCharacter('✓')).toBe('✓ U+2713');
  });

  it('agrees with the part count the API bills, for any body', () => {
    for (const body of ['', 'x', 'é'.repeat(200), '😀'.repeat(67), '[]'.repeat(90), 'ы'.repeat(71)]) {
      expect(bodyFacts(body).parts).toBe(body === '' ? 0 : countParts(body).numParts);
    }
  });

  it('reads recipients as the API does: normalised, duplicates once, the rest refused', () => {
    expect(recipientFacts('+61491570150\n61491570150, +61491570151; 12 abc')).toEqual({
      valid: ['+61491570150', '+61491570151'],
      invalid: ['12', 'abc'],
    });
    expect(creditsNeeded('a'.repeat(161), 2)).toBe(4);
  });
});

describe('dashboard rates', () => {
  it('divides counter differences by the time between reads, and skips a counter that restarted', () => {
    const rates = ratesBetween(
      { at: 1_000, counters: { accepted: 10, sent: 50 } },
      { at: 3_000, counters: { accepted: 30, sent: 4, delivered: 1 } },
    );
    expect(rates).toEqual({ accepted: 10, sent: null, delivered: null });
  });

  it('keeps a window of the latest points', () => {
    expect(appendPoint([1, 2, 3], 4, 3)).toEqual([2, 3, 4]);
    expect(appendPoint([1], 2, 3)).toEqual([1, 2]);
  });
});
