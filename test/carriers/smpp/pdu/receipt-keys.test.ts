import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextKey } from '../../../../src/carriers/smpp/pdu/receipt-keys.js';
import { parseReceiptText } from '../../../../src/carriers/smpp/pdu/index.js';

/** The expression the scanner replaces: the specification it is held to. */
const KEY = /(?:^|\s)(id|sub|dlvrd|submit[ _]?date|done[ _]?date|stat|err|text)\s*:/gi;
const NAME: Record<string, string> = {
  id: 'id',
  sub: 'sub',
  dlvrd: 'dlvrd',
  stat: 'stat',
  err: 'err',
  text: 'text',
};
const nameOf = (matched: string) => {
  const lower = matched.toLowerCase();
  if (lower.startsWith('submit')) return 'submitDate';
  if (lower.startsWith('done')) return 'doneDate';
  return NAME[lower]!;
};

/** Every match of the expression, as exec() walks the text. */
function byExpression(text: string) {
  const key = new RegExp(KEY);
  const found: { key: string; index: number; end: number }[] = [];
  for (let m = key.exec(text); m !== null; m = key.exec(text)) {
    found.push({ key: nameOf(m[1]!), index: m.index, end: m.index + m[0].length });
  }
  return found;
}

function byScanner(text: string) {
  const found: { key: string; index: number; end: number }[] = [];
  for (let m = nextKey(text, 0); m !== null; m = nextKey(text, m.end)) {
    found.push({ key: m.key, index: m.index, end: m.end });
  }
  return found;
}

/** Receipt-like text: keys in any case, near-keys, colons, and every kind of whitespace. */
const pieces = fc.constantFrom(
  'id',
  'ID',
  'Id',
  'sub',
  'SUB',
  'submit',
  'Submit',
  'submit date',
  'submit_date',
  'SUBMITDATE',
  'submit  date',
  'done date',
  'Done_Date',
  'donedate',
  'dlvrd',
  'DLVRD',
  'stat',
  'Stat',
  'err',
  'text',
  'TEXT',
  'identity',
  'stats',
  'date',
  ':',
  '::',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\u00a0',
  '\u2003',
  '\u3000',
  '\ufeff',
  '\u0130d',
  '\u017fub',
  '001',
  '2611211530',
  'DELIVRD',
  'x',
  '_',
  '-',
);
const receiptLike = fc.array(pieces, { maxLength: 40 }).map((p) => p.join(''));

describe('receipt keys', () => {
  it('finds what the expression finds, at the same places, in generated receipt texts', () => {
    fc.assert(
      fc.property(receiptLike, (text) => {
        expect(byScanner(text)).toEqual(byExpression(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it('finds what the expression finds in arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        expect(byScanner(text)).toEqual(byExpression(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads keys in any case and spacing, as SMSCs write them', () => {
    const parsed = parseReceiptText(
      'ID:AB12 Sub:001 DLVRD :001 Submit_Date:2611211530 DONE DATE: 2611211532 Stat : delivered err:000 Text:hi',
    );
    expect(parsed).toMatchObject({
      id: 'AB12',
      sub: '001',
      dlvrd: '001',
      submitDate: { year: 2026, month: 11, day: 21, hour: 15, minute: 30 },
      doneDate: { year: 2026, month: 11, day: 21, hour: 15, minute: 32 },
      stat: 'DELIVRD',
      err: '000',
      text: 'hi',
    });
  });

  it('is not fooled by words that start like a key', () => {
    expect(parseReceiptText('identity:7 stats:9 id:42')).toMatchObject({ id: '42', stat: null });
    expect(parseReceiptText('no keys here')).toBeNull();
  });
});
