import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CommandStatus,
  decodePdu,
  encodePdu,
  makePdu,
  PduReader,
  tlv,
  type DecodeResult,
} from '../../../../src/carriers/smpp/pdu/index.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

const submit = encodePdu(
  makePdu('submit_sm', {
    sequenceNumber: 42,
    destinationAddr: '447700900123',
    shortMessage: Buffer.from('hello'),
    tlvs: [tlv('user_message_reference', 1)],
  }),
);
const enquire = encodePdu(makePdu('enquire_link', { sequenceNumber: 43 }));

function kinds(results: DecodeResult[]): string[] {
  return results.map((r) => (r.kind === 'pdu' ? r.pdu.command : r.kind));
}

describe('PduReader framing', () => {
  it('waits for a PDU split across chunks at every possible point', () => {
    const stream = Buffer.concat([submit, enquire]);
    for (let cut = 1; cut < stream.length; cut++) {
      const reader = new PduReader();
      const first = reader.feed(stream.subarray(0, cut));
      const second = reader.feed(stream.subarray(cut));
      expect(kinds([...first, ...second])).toEqual(['submit_sm', 'enquire_link']);
      expect(first.length).toBe(cut >= submit.length ? 1 + (cut === stream.length ? 1 : 0) : 0);
      expect(reader.buffered).toBe(0);
    }
  });

  it('yields every PDU of a chunk that holds several, one byte at a time too', () => {
    const stream = Buffer.concat([enquire, submit, enquire]);
    expect(kinds(new PduReader().feed(stream))).toEqual(['enquire_link', 'submit_sm', 'enquire_link']);
    const reader = new PduReader();
    const out = [...stream].flatMap((b) => reader.feed(Buffer.of(b)));
    expect(kinds(out)).toEqual(['enquire_link', 'submit_sm', 'enquire_link']);
  });

  it('a command_length under 16 is fatal, and the reader then drops everything', () => {
    const reader = new PduReader();
    const [result, ...rest] = reader.feed(Buffer.concat([hex('0000000f 00000015'), enquire]));
    expect(rest).toEqual([]);
    expect(result).toMatchObject({ kind: 'fatal', commandLength: 15 });
    expect(reader.feed(enquire)).toEqual([]);
    expect(reader.buffered).toBe(0);
  });

  it('a command_length over the maximum is fatal without buffering the announced body', () => {
    const reader = new PduReader(1024);
    expect(reader.feed(hex('00000401 00000004'))).toEqual([]); // waits for the header's sequence number
    const [result] = reader.feed(hex('00000000 0000002a ffff'));
    expect(result).toEqual({
      kind: 'fatal',
      commandLength: 1025,
      commandId: 4,
      sequenceNumber: 42,
      reason: 'command_length 1025 > 1024',
    });
    expect(reader.buffered).toBe(0);
  });

  it('never holds more than one PDU of input while waiting', () => {
    const reader = new PduReader();
    const big = encodePdu(
      makePdu('data_sm', { sequenceNumber: 1, tlvs: [tlv('message_payload', Buffer.alloc(60_000, 0x41))] }),
    );
    for (let i = 0; i < big.length - 1; i += 1000)
      reader.feed(big.subarray(i, Math.min(i + 1000, big.length - 1)));
    expect(reader.buffered).toBe(big.length - 1);
    expect(kinds(reader.feed(big.subarray(big.length - 1)))).toEqual(['data_sm']);
    expect(reader.buffered).toBe(0);
  });
});

describe('PduReader / decodePdu on malformed PDUs', () => {
  it('an unknown command_id is invalid, with the sequence number to nack, and reading goes on', () => {
    const results = new PduReader().feed(
      Buffer.concat([hex('00000014 00000099 00000000 00000007 01020304'), enquire]),
    );
    expect(results[0]).toEqual({
      kind: 'invalid',
      commandId: 0x99,
      sequenceNumber: 7,
      nackStatus: CommandStatus.ESME_RINVCMDID,
      reason: 'unknown command_id 0x00000099',
    });
    expect(kinds(results)).toEqual(['invalid', 'enquire_link']);
  });

  it('a C-string without its NUL inside the body is invalid with ESME_RINVCMDLEN', () => {
    // bind_transmitter whose system_id runs to the end of the body
    const result = decodePdu(hex('00000015 00000002 00000000 00000005 736d736777'));
    expect(result).toMatchObject({
      kind: 'invalid',
      commandId: 2,
      sequenceNumber: 5,
      nackStatus: CommandStatus.ESME_RINVCMDLEN,
    });
    expect(result.kind === 'invalid' && result.reason).toMatch(/systemId.*NUL/);
  });

  it('a C-string without its NUL stays invalid when the next PDU in the chunk holds a NUL', () => {
    // The reader decodes PDUs where they lie in the chunk: the first one's system_id must not
    // borrow the zero octets of the enquire_link behind it.
    const unterminated = hex('00000015 00000002 00000000 00000005 736d736777');
    const results = new PduReader().feed(Buffer.concat([unterminated, enquire]));
    expect(kinds(results)).toEqual(['invalid', 'enquire_link']);
    expect(results[0]?.kind === 'invalid' && results[0].reason).toMatch(/systemId.*NUL/);
    expect(results[1]).toMatchObject({ kind: 'pdu', pdu: { sequenceNumber: 43 } });
  });

  it('a body that ends inside a field, or a TLV that overruns, is invalid', () => {
    const short = Buffer.from(submit.subarray(0, 30));
    short.writeUInt32BE(30, 0);
    expect(decodePdu(short)).toMatchObject({
      kind: 'invalid',
      sequenceNumber: 42,
      nackStatus: CommandStatus.ESME_RINVCMDLEN,
    });
    const overrun = Buffer.from(submit);
    overrun.writeUInt16BE(3, overrun.length - 4); // the TLV claims 3 octets, 2 follow
    expect(decodePdu(overrun)).toMatchObject({ kind: 'invalid', nackStatus: CommandStatus.ESME_RINVPARLEN });
    const stray = Buffer.concat([enquire, hex('00')]);
    stray.writeUInt32BE(17, 0);
    expect(decodePdu(stray)).toMatchObject({
      kind: 'invalid',
      nackStatus: CommandStatus.ESME_RINVOPTPARSTREAM,
    });
  });

  it('a frame whose length disagrees with command_length is fatal', () => {
    expect(decodePdu(enquire.subarray(0, 12))).toMatchObject({ kind: 'fatal' });
    expect(decodePdu(Buffer.concat([enquire, hex('00')]))).toMatchObject({
      kind: 'fatal',
      sequenceNumber: 43,
    });
  });

  // Random headers rarely have a plausible length, so these frames get a real one and a real id.
  const frame = fc
    .tuple(
      fc.integer({ min: 0, max: 40 }),
      fc.constantFrom(...[1, 2, 3, 4, 5, 6, 9, 0x15, 0x103, 0x80000004, 0x80000000]),
    )
    .chain(([bodyLength, id]) =>
      fc.uint8Array({ minLength: bodyLength + 8, maxLength: bodyLength + 8 }).map((rest) => {
        const b = Buffer.alloc(8 + rest.length);
        b.writeUInt32BE(16 + bodyLength, 0);
        b.writeUInt32BE(id, 4);
        Buffer.from(rest).copy(b, 8);
        return b;
      }),
    );

  it('decodes any well-framed body to a PDU or an invalid result, never a throw', () => {
    fc.assert(
      fc.property(frame, (bytes) => {
        expect(['pdu', 'invalid']).toContain(decodePdu(bytes).kind);
      }),
      { numRuns: 5000 },
    );
  });

  it('never throws on random bytes, whatever the chunking, and stays bounded', () => {
    const stream = fc
      .array(
        fc.oneof(
          frame,
          fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
        ),
        { maxLength: 8 },
      )
      .map((bufs) => Buffer.concat(bufs));
    fc.assert(
      fc.property(stream, fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1 }), (bytes, sizes) => {
        const reader = new PduReader(256);
        let offset = 0;
        for (let i = 0; offset < bytes.length; i++) {
          const size = sizes[i % sizes.length] ?? 1;
          const results = reader.feed(bytes.subarray(offset, offset + size));
          offset += size;
          for (const r of results) expect(['pdu', 'invalid', 'fatal']).toContain(r.kind);
          expect(reader.buffered).toBeLessThan(256 + 50);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
