import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GSM7_BASIC } from '../../../../src/domain/gsm7.js';
import {
  chooseDataCoding,
  DataCoding,
  decodeText,
  encodeText,
} from '../../../../src/carriers/smpp/pdu/index.js';

function bytes(text: string, dataCoding: number): Buffer {
  const r = encodeText(text, dataCoding);
  if (r.kind !== 'ok') throw new Error(JSON.stringify(r));
  return r.bytes;
}

describe('data_coding 0: GSM 03.38, one septet per octet', () => {
  it('maps the basic table by position and extension characters to ESC + code', () => {
    expect(bytes('@£$Δ_ ', 0)).toEqual(Buffer.from([0x00, 0x01, 0x02, 0x10, 0x11, 0x20]));
    expect(bytes('{}[]~|^\\€\f', 0).toString('hex')).toBe('1b281b291b3c1b3e1b3d1b401b141b2f1b651b0a');
  });

  it('round-trips every basic and extension character', () => {
    const all = [...GSM7_BASIC].filter((c) => c !== '\x1b').join('') + '{}[]~|^\\€\f';
    expect(decodeText(bytes(all, 0), 0)).toEqual({ text: all, problem: null });
  });

  it('names the first character it cannot carry instead of writing "?"', () => {
    expect(encodeText('Hi ç and 😀', 0)).toEqual({ kind: 'unencodable', dataCoding: 0, index: 3, char: 'ç' });
    expect(encodeText('Hi 😀', 0)).toEqual({ kind: 'unencodable', dataCoding: 0, index: 3, char: '😀' });
    expect(encodeText('\x1b', 0)).toMatchObject({ kind: 'unencodable', char: '\x1b' });
  });

  it('decodes an ESC before an unknown code as the basic character and reports octets over 0x7F', () => {
    expect(decodeText(Buffer.from([0x1b, 0x41, 0x1b]), 0)).toEqual({ text: 'A', problem: null });
    expect(decodeText(Buffer.from([0x41, 0x80, 0x42]), 0)).toEqual({
      text: 'A\ufffdB',
      problem: { kind: 'invalid-octet', offset: 1 },
    });
  });
});

describe('data_coding 3 and 8', () => {
  it('Latin-1 carries é but not € or emoji', () => {
    expect(bytes('café', 3)).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(encodeText('5 €', 3)).toEqual({ kind: 'unencodable', dataCoding: 3, index: 2, char: '€' });
    expect(encodeText('a😀', 3)).toEqual({ kind: 'unencodable', dataCoding: 3, index: 1, char: '😀' });
  });

  it('UCS-2 is big-endian and carries an emoji as its surrogate pair', () => {
    expect(bytes('Aж😀', 8).toString('hex')).toBe('00410436d83dde00');
    expect(decodeText(Buffer.from('00410436d83dde00', 'hex'), 8)).toEqual({ text: 'Aж😀', problem: null });
  });

  it('UCS-2 refuses a lone surrogate and reports an odd octet count', () => {
    expect(encodeText('a\ud83d', 8)).toEqual({
      kind: 'unencodable',
      dataCoding: 8,
      index: 1,
      char: '\ud83d',
    });
    expect(decodeText(Buffer.from('004100', 'hex'), 8)).toEqual({
      text: 'A',
      problem: { kind: 'odd-length' },
    });
  });

  it('round-trips any well-formed text through UCS-2', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(decodeText(bytes(text, 8), 8)).toEqual({ text, problem: null });
      }),
    );
  });

  it('refuses to encode an unknown coding and decodes one as Latin-1, saying so', () => {
    expect(encodeText('a', 4)).toEqual({ kind: 'unsupported-coding', dataCoding: 4 });
    expect(decodeText(Buffer.from([0x61, 0xe9]), 4)).toEqual({
      text: 'aé',
      problem: { kind: 'unsupported-coding', dataCoding: 4 },
    });
  });
});

describe('chooseDataCoding', () => {
  it('GSM-7 text goes as GSM, anything else as UCS-2', () => {
    expect(chooseDataCoding('Hello {world} €5')).toBe(DataCoding.Gsm7);
    expect(chooseDataCoding('Hello 😀')).toBe(DataCoding.Ucs2);
    expect(chooseDataCoding('garçon')).toBe(DataCoding.Ucs2); // ç: Latin-1 but not GSM-7
  });

  it('honours a Latin-1 preference only when Latin-1 can carry the GSM-7 text', () => {
    expect(chooseDataCoding('Hello {world}', DataCoding.Latin1)).toBe(DataCoding.Latin1);
    expect(chooseDataCoding('5 €', DataCoding.Latin1)).toBe(DataCoding.Gsm7);
    expect(chooseDataCoding('ΔΦ', DataCoding.Latin1)).toBe(DataCoding.Gsm7);
  });
});
