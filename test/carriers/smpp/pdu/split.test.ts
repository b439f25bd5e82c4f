import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planParts } from '../../../../src/domain/parts.js';
import {
  chooseDataCoding,
  concatUdh,
  decodeText,
  EsmClass,
  getTlv,
  parseConcat,
  parseUdh,
  splitForSubmit,
  type ConcatMode,
  type SubmitPart,
} from '../../../../src/carriers/smpp/pdu/index.js';

const EMOJI = '😀';

function split(text: string, dataCoding: number, mode: ConcatMode, ref = 0x1234): SubmitPart[] {
  const r = splitForSubmit(text, dataCoding, mode, ref);
  if (r.kind !== 'ok') throw new Error(JSON.stringify(r));
  return r.parts;
}

/** Reassembles parts as a receiving SMSC or handset would, checking the concat info on the way. */
function reassemble(parts: SubmitPart[], dataCoding: number): string {
  return parts
    .map((p, i) => {
      const info = parseConcat({ esmClass: p.esmClass, shortMessage: p.shortMessage, tlvs: p.tlvs });
      if (parts.length === 1) {
        expect(info).toBeNull();
        return decodeText(p.shortMessage, dataCoding).text;
      }
      expect(info).toMatchObject({ total: parts.length, seq: i + 1 });
      return decodeText(info?.body ?? Buffer.alloc(0), dataCoding).text;
    })
    .join('');
}

/** Boundary texts for both encodings, including the escape and surrogate straddles. */
const boundaries = [
  '',
  'a'.repeat(160),
  'a'.repeat(161),
  'a'.repeat(306),
  'a'.repeat(307),
  'a'.repeat(159) + '€',
  'a'.repeat(152) + '€' + 'a'.repeat(151) + '€',
  'ж'.repeat(70),
  'ж'.repeat(71),
  'ж'.repeat(134),
  'ж'.repeat(135),
  'ж'.repeat(66) + EMOJI + 'ж'.repeat(10),
  EMOJI.repeat(36),
];

describe('splitForSubmit', () => {
  it.each(boundaries.map((t) => [t.length, t] as const))(
    'udh8 and sar cut a %i-unit body exactly where planParts does',
    (_n, text) => {
      const dc = chooseDataCoding(text);
      const planned = planParts(text).parts;
      for (const mode of ['udh8', 'sar'] as const) {
        const parts = split(text, dc, mode);
        expect(parts).toHaveLength(planned.length);
        expect(reassemble(parts, dc)).toBe(text);
        parts.forEach((p, i) => {
          const body = mode === 'udh8' && parts.length > 1 ? p.shortMessage.subarray(6) : p.shortMessage;
          expect(decodeText(body, dc).text).toBe(planned[i]);
        });
      }
    },
  );

  it('udh8 writes 05 00 03 ref total seq and sets UDHI', () => {
    const parts = split('a'.repeat(161), 0, 'udh8', 0x1234);
    expect(parts.map((p) => p.shortMessage.subarray(0, 6).toString('hex'))).toEqual([
      '050003340201',
      '050003340202',
    ]);
    expect(parts.map((p) => p.esmClass)).toEqual([EsmClass.Udhi, EsmClass.Udhi]);
  });

  it('udh16 writes 06 08 04 refhi reflo total seq and keeps each part inside 140 octets on air', () => {
    const parts = split('a'.repeat(305), 0, 'udh16', 0x1234);
    expect(parts.map((p) => p.shortMessage.subarray(0, 7).toString('hex'))).toEqual([
      '06080412340301',
      '06080412340302',
      '06080412340303',
    ]);
    expect(parts.map((p) => p.shortMessage.length - 7)).toEqual([152, 152, 1]);
    const ucs = split('ж'.repeat(134), 8, 'udh16');
    expect(ucs.map((p) => p.shortMessage.length)).toEqual([7 + 132, 7 + 132, 7 + 4]);
    expect(reassemble(ucs, 8)).toBe('ж'.repeat(134));
  });

  it('sar puts the reference and counts in TLVs and leaves esm_class alone', () => {
    const parts = split('ж'.repeat(71), 8, 'sar', 0x1234);
    expect(parts.map((p) => p.esmClass)).toEqual([0, 0]);
    expect(parts.map((p) => getTlv(p.tlvs, 'sar_segment_seqnum'))).toEqual([1, 2]);
    expect(getTlv(parts[0]?.tlvs, 'sar_msg_ref_num')).toBe(0x1234);
    expect(getTlv(parts[1]?.tlvs, 'sar_total_segments')).toBe(2);
  });

  it('payload mode sends the whole text in one message_payload', () => {
    const parts = split('a'.repeat(400) + '€', 0, 'payload');
    expect(parts).toHaveLength(1);
    expect(parts[0]?.shortMessage.length).toBe(0);
    expect(getTlv(parts[0]?.tlvs, 'message_payload')?.length).toBe(402);
  });

  it('a single part carries no UDH and no TLVs', () => {
    expect(split('hello', 0, 'udh8')).toEqual([
      { shortMessage: Buffer.from('hello'), esmClass: 0, tlvs: [] },
    ]);
  });

  it('Latin-1: 160 octets in one part, else 153, and GSM-7 text is cut as GSM-7', () => {
    expect(split('é'.repeat(160), 3, 'udh8')).toHaveLength(1);
    expect(split('é'.repeat(161), 3, 'udh8').map((p) => p.shortMessage.length - 6)).toEqual([153, 8]);
    // "{" is one Latin-1 octet but two septets once the SMSC turns it into GSM-7.
    expect(split('{'.repeat(81), 3, 'udh8')).toHaveLength(planParts('{'.repeat(81)).parts.length);
  });

  it('refuses text the coding cannot carry, and more than 255 parts', () => {
    expect(splitForSubmit('a😀', 0, 'udh8', 1)).toMatchObject({ kind: 'unencodable', char: '😀' });
    expect(splitForSubmit('a'.repeat(153 * 256), 0, 'udh8', 1)).toEqual({
      kind: 'too-many-parts',
      count: 256,
    });
  });

  it('part count equals planParts and the parts reassemble, for random bodies', () => {
    const symbol = fc.constantFrom('a', 'Δ', '€', '{', 'ж', EMOJI, ' ');
    const body = fc.array(symbol, { maxLength: 400 }).map((s) => s.join(''));
    fc.assert(
      fc.property(body, fc.constantFrom('udh8' as const, 'sar' as const), (text, mode) => {
        const dc = chooseDataCoding(text);
        const parts = split(text, dc, mode);
        expect(parts).toHaveLength(planParts(text).parts.length);
        expect(reassemble(parts, dc)).toBe(text);
      }),
    );
  });
});

describe('parseUdh', () => {
  it('round-trips concatUdh for both reference sizes', () => {
    const body = Buffer.from('hi');
    for (const [bits, ref] of [
      [8, 0xab],
      [16, 0xbeef],
    ] as const) {
      const sm = Buffer.concat([concatUdh(bits, ref, 3, 2), body]);
      expect(parseUdh(sm, EsmClass.Udhi)).toEqual({ ref, total: 3, seq: 2, body });
    }
    expect(() => concatUdh(8, 1, 256, 1)).toThrow(RangeError);
    expect(() => concatUdh(8, 1, 2, 3)).toThrow(RangeError);
  });

  it('ignores a UDH when UDHI is off, and malformed or non-concat headers', () => {
    const udh = Buffer.from('050003340201', 'hex');
    expect(parseUdh(udh, 0)).toBeNull();
    expect(parseUdh(Buffer.from('0500033402', 'hex'), EsmClass.Udhi)).toBeNull(); // header longer than data
    expect(parseUdh(Buffer.from('050003340203', 'hex'), EsmClass.Udhi)).toBeNull(); // seq > total
    expect(parseUdh(Buffer.from('0605040b8423f0', 'hex'), EsmClass.Udhi)).toBeNull(); // ports only
    expect(parseUdh(Buffer.alloc(0), EsmClass.Udhi)).toBeNull();
  });

  it('finds the concat element among others', () => {
    const sm = Buffer.from('0b' + '0504' + '0b8423f0' + '0003' + 'ab0201' + '6869', 'hex');
    expect(parseUdh(sm, EsmClass.Udhi)).toEqual({ ref: 0xab, total: 2, seq: 1, body: Buffer.from('hi') });
  });

  it('reads sar TLVs from an inbound PDU, stripping a UDH that carries ports only', () => {
    const parts = split('a'.repeat(200), 0, 'sar', 77);
    const sm = Buffer.concat([
      Buffer.from('0605040b8423f0', 'hex'),
      parts[1]?.shortMessage ?? Buffer.alloc(0),
    ]);
    expect(parseConcat({ esmClass: EsmClass.Udhi, shortMessage: sm, tlvs: parts[1]?.tlvs })).toEqual({
      ref: 77,
      total: 2,
      seq: 2,
      body: Buffer.from('a'.repeat(47)),
    });
  });
});
