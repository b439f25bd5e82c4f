import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  CommandId,
  CommandStatus,
  decodePdu,
  encodePdu,
  getTlv,
  makePdu,
  PduEncodeError,
  tlv,
  type CommandName,
  type Pdu,
  type Tlv,
} from '../../../../src/carriers/smpp/pdu/index.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

function roundTrip(pdu: Pdu): Pdu {
  const result = decodePdu(encodePdu(pdu));
  if (result.kind !== 'pdu') throw new Error(`decode failed: ${JSON.stringify(result)}`);
  return result.pdu;
}

const bind = {
  systemId: 'smsgw',
  password: 'secret',
  systemType: 'BULK',
  addrTon: 1,
  addrNpi: 1,
  addressRange: '^44',
};
const message = {
  serviceType: 'CMT',
  sourceAddrTon: 5,
  sourceAddrNpi: 0,
  sourceAddr: 'SMSGW',
  destAddrTon: 1,
  destAddrNpi: 1,
  destinationAddr: '447700900123',
  esmClass: 0x40,
  protocolId: 0,
  priorityFlag: 1,
  scheduleDeliveryTime: '261121153000000+',
  validityPeriod: '000001000000000R',
  registeredDelivery: 1,
  replaceIfPresentFlag: 0,
  dataCoding: 8,
  smDefaultMsgId: 0,
  shortMessage: Buffer.from('0500030a0201', 'hex'),
};
const dataSm = { ...message, sourceAddr: 'A'.repeat(64) };

// One of every command, with values away from the defaults so a swapped field would show.
const samples: Pdu[] = [
  { command: 'generic_nack', sequenceNumber: 7, commandStatus: CommandStatus.ESME_RINVCMDID },
  { command: 'bind_receiver', sequenceNumber: 1, commandStatus: 0, interfaceVersion: 0x34, ...bind },
  { command: 'bind_receiver_resp', sequenceNumber: 1, commandStatus: 0, systemId: 'SMSC' },
  { command: 'bind_transmitter', sequenceNumber: 2, commandStatus: 0, interfaceVersion: 0x33, ...bind },
  {
    command: 'bind_transmitter_resp',
    sequenceNumber: 2,
    commandStatus: 0,
    systemId: 'SMSC',
    tlvs: [tlv('sc_interface_version', 0x34)],
  },
  { command: 'bind_transceiver', sequenceNumber: 3, commandStatus: 0, interfaceVersion: 0x34, ...bind },
  {
    command: 'bind_transceiver_resp',
    sequenceNumber: 3,
    commandStatus: CommandStatus.ESME_RINVPASWD,
    systemId: '',
  },
  { command: 'outbind', sequenceNumber: 4, commandStatus: 0, systemId: 'smsgw', password: 'pw' },
  { command: 'unbind', sequenceNumber: 5, commandStatus: 0 },
  { command: 'unbind_resp', sequenceNumber: 5, commandStatus: 0 },
  { command: 'enquire_link', sequenceNumber: 0x7fffffff, commandStatus: 0 },
  { command: 'enquire_link_resp', sequenceNumber: 0x7fffffff, commandStatus: 0 },
  {
    command: 'submit_sm',
    sequenceNumber: 8,
    commandStatus: 0,
    ...message,
    tlvs: [tlv('user_message_reference', 9)],
  },
  { command: 'submit_sm_resp', sequenceNumber: 8, commandStatus: 0, messageId: '5f3a9c01' },
  {
    command: 'deliver_sm',
    sequenceNumber: 9,
    commandStatus: 0,
    ...message,
    esmClass: 0x04,
    tlvs: [
      tlv('receipted_message_id', '5f3a9c01'),
      tlv('message_state', 2),
      { tag: 0x1400, value: hex('cafe') },
    ],
  },
  { command: 'deliver_sm_resp', sequenceNumber: 9, commandStatus: 0, messageId: '' },
  {
    command: 'data_sm',
    sequenceNumber: 10,
    commandStatus: 0,
    serviceType: dataSm.serviceType,
    sourceAddrTon: 5,
    sourceAddrNpi: 0,
    sourceAddr: dataSm.sourceAddr,
    destAddrTon: 1,
    destAddrNpi: 1,
    destinationAddr: '447700900123',
    esmClass: 0,
    registeredDelivery: 1,
    dataCoding: 0,
    tlvs: [
      tlv('message_payload', Buffer.from('hello')),
      tlv('source_port', 1234),
      tlv('destination_port', 5678),
    ],
  },
  { command: 'data_sm_resp', sequenceNumber: 10, commandStatus: 0, messageId: 'abc' },
  {
    command: 'query_sm',
    sequenceNumber: 11,
    commandStatus: 0,
    messageId: 'abc',
    sourceAddrTon: 1,
    sourceAddrNpi: 1,
    sourceAddr: '4477',
  },
  {
    command: 'query_sm_resp',
    sequenceNumber: 11,
    commandStatus: 0,
    messageId: 'abc',
    finalDate: '261121153000000+',
    messageState: 2,
    errorCode: 0,
  },
  makePdu('cancel_sm', {
    sequenceNumber: 12,
    messageId: '1234',
    sourceAddrTon: 1,
    sourceAddrNpi: 1,
    sourceAddr: '4477',
    destinationAddr: '4478',
  }),
  makePdu('cancel_sm_resp', { sequenceNumber: 12 }),
  makePdu('submit_multi', {
    sequenceNumber: 13,
    sourceAddr: 'Shop',
    sourceAddrTon: 5,
    destAddresses: [
      { kind: 'sme', ton: 1, npi: 1, addr: '447700900123' },
      { kind: 'list', name: 'friends' },
    ],
    registeredDelivery: 1,
    shortMessage: Buffer.from('hi all'),
  }),
  makePdu('submit_multi_resp', {
    sequenceNumber: 13,
    messageId: '77',
    unsuccessSmes: [{ ton: 1, npi: 1, addr: '999', errorStatusCode: 0x0b }],
  }),
];

describe('encodePdu / decodePdu', () => {
  it('has a sample for every command', () => {
    expect(new Set(samples.map((p) => p.command))).toEqual(new Set(Object.keys(CommandId) as CommandName[]));
  });

  it.each(samples.map((p) => [p.command, p] as const))('round-trips %s', (_name, pdu) => {
    expect(roundTrip(pdu)).toEqual(pdu);
  });

  it('writes a bind_transceiver byte for byte as SMPP 3.4 §4.1.5 lays it out', () => {
    const pdu = makePdu('bind_transceiver', { sequenceNumber: 1, systemId: 'smsgw', password: 'secret' });
    const expected = hex(`
      00000022 00000009 00000000 00000001
      736d736777 00
      736563726574 00
      00
      34 00 00
      00`);
    expect(encodePdu(pdu)).toEqual(expected);
    expect(decodePdu(expected)).toEqual({ kind: 'pdu', pdu });
  });

  it('writes a submit_sm with a GSM extension character and a TLV byte for byte', () => {
    const pdu = makePdu('submit_sm', {
      sequenceNumber: 2,
      sourceAddrTon: 5,
      sourceAddr: 'SMSGW',
      destAddrTon: 1,
      destAddrNpi: 1,
      destinationAddr: '447700900123',
      registeredDelivery: 1,
      shortMessage: hex('4869201b65'), // "Hi €": € is ESC 0x65
      tlvs: [tlv('user_message_reference', 7)],
    });
    const expected = hex(`
      0000003d 00000004 00000000 00000002
      00
      05 00 534d534757 00
      01 01 343437373030393030313233 00
      00 00 00
      00
      00
      01 00 00 00
      05 4869201b65
      0204 0002 0007`);
    expect(encodePdu(pdu)).toEqual(expected);
    expect(decodePdu(expected)).toEqual({ kind: 'pdu', pdu });
  });

  it('narrows the union on command', () => {
    const pdu = samples.find((p) => p.command === 'submit_sm');
    if (pdu?.command !== 'submit_sm') throw new Error('no submit_sm sample');
    expectTypeOf(pdu.shortMessage).toEqualTypeOf<Buffer>();
    expectTypeOf(pdu.esmClass).toEqualTypeOf<number>();
    expectTypeOf<Extract<Pdu, { command: 'enquire_link' }>>().toEqualTypeOf<{
      command: 'enquire_link';
      sequenceNumber: number;
      commandStatus: number;
      tlvs?: Tlv[];
    }>();
  });

  it('reads a response whose body is left out because of an error status', () => {
    const frame = hex('00000010 80000004 00000045 00000003');
    expect(decodePdu(frame)).toEqual({
      kind: 'pdu',
      pdu: {
        command: 'submit_sm_resp',
        sequenceNumber: 3,
        commandStatus: CommandStatus.ESME_RSUBMITFAIL,
        messageId: '',
      },
    });
  });

  it('keeps unknown TLVs as raw octets, in order, and reads the known ones typed', () => {
    const tlvs = [
      { tag: 0x1400, value: hex('01020304') },
      tlv('network_error_code', { networkType: 3, errorCode: 0x0102 }),
      tlv('sar_msg_ref_num', 0xbeef),
      tlv('sar_total_segments', 3),
      tlv('sar_segment_seqnum', 2),
      { tag: 0x1401, value: Buffer.alloc(0) },
    ];
    const pdu = roundTrip(makePdu('deliver_sm', { sequenceNumber: 1, tlvs }));
    expect(pdu.tlvs).toEqual(tlvs);
    expect(tlvs[1]?.value).toEqual(hex('030102'));
    expect(getTlv(pdu.tlvs, 'network_error_code')).toEqual({ networkType: 3, errorCode: 0x0102 });
    expect(getTlv(pdu.tlvs, 'sar_msg_ref_num')).toBe(0xbeef);
    expect(getTlv(pdu.tlvs, 'message_state')).toBeUndefined();
  });

  it('reads a TLV of the wrong size as absent, and a receipted_message_id without its NUL', () => {
    const tlvs = [
      { tag: 0x0427, value: hex('0002') },
      { tag: 0x001e, value: Buffer.from('abc') },
    ];
    expect(getTlv(tlvs, 'message_state')).toBeUndefined();
    expect(getTlv(tlvs, 'receipted_message_id')).toBe('abc');
  });

  it('refuses to write a field that breaks the layout', () => {
    expect(() =>
      encodePdu(makePdu('bind_transmitter', { sequenceNumber: 1, systemId: 'x'.repeat(16) })),
    ).toThrow(PduEncodeError);
    expect(() => encodePdu(makePdu('submit_sm', { sequenceNumber: 1, sourceAddr: 'a\0b' }))).toThrow(/NUL/);
    expect(() => encodePdu(makePdu('submit_sm', { sequenceNumber: 1, esmClass: 256 }))).toThrow(/esmClass/);
    expect(() => encodePdu(makePdu('unbind', { sequenceNumber: -1 }))).toThrow(RangeError);
    expect(() => tlv('message_state', 256)).toThrow(RangeError);
    expect(() =>
      encodePdu(makePdu('submit_sm', { sequenceNumber: 1, shortMessage: Buffer.alloc(255) })),
    ).toThrow(/message_payload/);
  });

  it('writes a PDU far larger than the encoder starts with, header length included', () => {
    const payload = Buffer.from(Array.from({ length: 5_000 }, (_, i) => i & 0xff));
    const pdu = makePdu('data_sm', {
      sequenceNumber: 9,
      sourceAddr: 'x'.repeat(64),
      tlvs: [tlv('message_payload', payload)],
    });
    const octets = encodePdu(pdu);
    expect(octets.readUInt32BE(0)).toBe(octets.length);
    expect(octets.length).toBeGreaterThan(5_000);
    expect(roundTrip(pdu)).toEqual(pdu);
  });

  it('round-trips arbitrary submit_sm field values', () => {
    const cstr = (max: number) =>
      fc.string({
        unit: fc.integer({ min: 1, max: 255 }).map((c) => String.fromCharCode(c)),
        maxLength: max - 1,
      });
    const octet = fc.integer({ min: 0, max: 255 });
    const arb = fc.record({
      command: fc.constantFrom('submit_sm' as const, 'deliver_sm' as const),
      sequenceNumber: fc.integer({ min: 0, max: 0xffffffff }),
      commandStatus: fc.integer({ min: 0, max: 0xffffffff }),
      serviceType: cstr(6),
      sourceAddrTon: octet,
      sourceAddrNpi: octet,
      sourceAddr: cstr(21),
      destAddrTon: octet,
      destAddrNpi: octet,
      destinationAddr: cstr(21),
      esmClass: octet,
      protocolId: octet,
      priorityFlag: octet,
      scheduleDeliveryTime: cstr(17),
      validityPeriod: cstr(17),
      registeredDelivery: octet,
      replaceIfPresentFlag: octet,
      dataCoding: octet,
      smDefaultMsgId: octet,
      shortMessage: fc.uint8Array({ maxLength: 254 }).map((a) => Buffer.from(a)),
      tlvs: fc.array(
        fc.record({
          tag: fc.integer({ min: 0, max: 0xffff }),
          value: fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    });
    fc.assert(
      fc.property(arb, (pdu) => {
        expect(roundTrip(pdu)).toEqual(pdu);
      }),
    );
  });
});
