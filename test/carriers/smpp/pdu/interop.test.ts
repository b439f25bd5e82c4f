/**
 * Our codec against an independent implementation (npm `smpp`): PDUs either side writes must
 * read back the same on the other, and the status tables must agree.
 */
import smpp from 'smpp';
import { describe, expect, it } from 'vitest';
import {
  CommandStatus,
  decodePdu,
  encodePdu,
  encodeText,
  getTlv,
  makePdu,
  tlv,
  type Pdu,
} from '../../../../src/carriers/smpp/pdu/index.js';

function ours(buf: Buffer): Pdu {
  const r = decodePdu(buf);
  if (r.kind !== 'pdu') throw new Error(JSON.stringify(r));
  return r.pdu;
}

function theirs(buf: Buffer) {
  const pdu = smpp.PDU.fromBuffer(buf);
  if (!pdu) throw new Error('smpp could not read the buffer');
  return pdu;
}

function gsm(text: string): Buffer {
  const r = encodeText(text, 0);
  if (r.kind !== 'ok') throw new Error(r.kind);
  return r.bytes;
}

describe('interop with the npm smpp package', () => {
  it('a submit_sm written by smpp reads the same with our decoder', () => {
    const buf = new smpp.PDU('submit_sm', {
      sequence_number: 12,
      source_addr_ton: 5,
      source_addr: 'SMSGW',
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      destination_addr: '447700900123',
      registered_delivery: 1,
      data_coding: 0,
      short_message: gsm('Price: 5€ {ok}'),
      user_message_reference: 99,
    }).toBuffer();
    expect(ours(buf)).toEqual(
      makePdu('submit_sm', {
        sequenceNumber: 12,
        sourceAddrTon: 5,
        sourceAddr: 'SMSGW',
        destAddrTon: 1,
        destAddrNpi: 1,
        destinationAddr: '447700900123',
        registeredDelivery: 1,
        shortMessage: gsm('Price: 5€ {ok}'),
        tlvs: [tlv('user_message_reference', 99)],
      }),
    );
  });

  it('a submit_sm written by us reads the same with smpp, GSM text included', () => {
    const buf = encodePdu(
      makePdu('submit_sm', {
        sequenceNumber: 13,
        sourceAddr: 'SMSGW',
        destinationAddr: '447700900123',
        esmClass: 0x40,
        registeredDelivery: 1,
        shortMessage: Buffer.concat([Buffer.from('050003070201', 'hex'), gsm('Price: 5€ {ok}')]),
        tlvs: [tlv('user_message_reference', 99)],
      }),
    );
    const pdu = theirs(buf);
    expect(pdu).toMatchObject({
      command: 'submit_sm',
      sequence_number: 13,
      source_addr: 'SMSGW',
      destination_addr: '447700900123',
      esm_class: 0x40,
      registered_delivery: 1,
      data_coding: 0,
      user_message_reference: 99,
    });
    expect(pdu.short_message).toMatchObject({ message: 'Price: 5€ {ok}' });
  });

  it('a UCS-2 deliver_sm receipt written by us reads the same with smpp', () => {
    const body = encodeText('Привет 😀', 8);
    if (body.kind !== 'ok') throw new Error(body.kind);
    const buf = encodePdu(
      makePdu('deliver_sm', {
        sequenceNumber: 14,
        esmClass: 0x04,
        dataCoding: 8,
        shortMessage: body.bytes,
        tlvs: [tlv('receipted_message_id', '75BCD15'), tlv('message_state', 2)],
      }),
    );
    expect(theirs(buf)).toMatchObject({
      command: 'deliver_sm',
      receipted_message_id: '75BCD15',
      message_state: 2,
      short_message: { message: 'Привет 😀' },
    });
  });

  it('binds, their responses and an error response without a body read both ways', () => {
    const bind = encodePdu(
      makePdu('bind_transceiver', { sequenceNumber: 1, systemId: 'smsgw', password: 'secret' }),
    );
    expect(theirs(bind)).toMatchObject({ system_id: 'smsgw', password: 'secret', interface_version: 0x34 });
    const theirBind = new smpp.PDU('bind_transceiver', {
      sequence_number: 1,
      system_id: 'smsgw',
      password: 'secret',
      interface_version: 0x34, // its default is 0x50 (SMPP 5.0)
    }).toBuffer();
    expect(theirBind).toEqual(bind);

    const resp = new smpp.PDU('bind_transceiver_resp', { sequence_number: 1, system_id: 'SMSC' }).toBuffer();
    expect(ours(resp)).toEqual(makePdu('bind_transceiver_resp', { sequenceNumber: 1, systemId: 'SMSC' }));

    const refused = new smpp.PDU('submit_sm_resp', {
      sequence_number: 2,
      command_status: smpp.errors.ESME_RTHROTTLED,
    }).toBuffer();
    expect(ours(refused)).toEqual(
      makePdu('submit_sm_resp', { sequenceNumber: 2, commandStatus: CommandStatus.ESME_RTHROTTLED }),
    );
  });

  it('message_payload and sar TLVs in a data_sm read both ways', () => {
    const buf = encodePdu(
      makePdu('data_sm', {
        sequenceNumber: 3,
        destinationAddr: '4477',
        tlvs: [tlv('sar_msg_ref_num', 0x1234), tlv('sar_total_segments', 2), tlv('sar_segment_seqnum', 1)],
      }),
    );
    expect(theirs(buf)).toMatchObject({
      sar_msg_ref_num: 0x1234,
      sar_total_segments: 2,
      sar_segment_seqnum: 1,
    });
    const back = ours(
      new smpp.PDU('data_sm', { sequence_number: 4, message_payload: Buffer.from('hello') }).toBuffer(),
    );
    expect(getTlv(back.tlvs, 'message_payload')).toEqual(Buffer.from('hello'));
  });

  it('agrees on every command_status value both tables name', () => {
    const renamedIn50: Record<string, string> = {
      ESME_RINVOPTPARSTREAM: 'ESME_RINVTLVSTREAM',
      ESME_ROPTPARNOTALLWD: 'ESME_RTLVNOTALLWD',
      ESME_RINVPARLEN: 'ESME_RINVTLVLEN',
      ESME_RMISSINGOPTPARAM: 'ESME_RMISSINGTLV',
      ESME_RINVOPTPARAMVAL: 'ESME_RINVTLVVAL',
    };
    for (const [name, value] of Object.entries(CommandStatus)) {
      expect([name, smpp.errors[renamedIn50[name] ?? name]]).toEqual([name, value]);
    }
  });
});
