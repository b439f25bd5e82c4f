import { describe, expect, it } from 'vitest';
import {
  EsmClass,
  isDeliveryReceipt,
  makePdu,
  messageIdsMatch,
  MessageState,
  parseReceiptText,
  readReceipt,
  tlv,
} from '../../../../src/carriers/smpp/pdu/index.js';

const APPENDIX_B =
  'id:0123456789 sub:001 dlvrd:001 submit date:2611211530 done date:261121153245 stat:DELIVRD err:000 text:Hello stat:x';

describe('parseReceiptText', () => {
  it('reads the Appendix B format, text running to the end', () => {
    expect(parseReceiptText(APPENDIX_B)).toEqual({
      id: '0123456789',
      sub: '001',
      dlvrd: '001',
      submitDate: { year: 2026, month: 11, day: 21, hour: 15, minute: 30, second: 0 },
      doneDate: { year: 2026, month: 11, day: 21, hour: 15, minute: 32, second: 45 },
      stat: 'DELIVRD',
      statText: 'DELIVRD',
      err: '000',
      text: 'Hello stat:x',
    });
  });

  it('takes keys in any case, missing fields as null, and full-word states', () => {
    const r = parseReceiptText('ID:7f3A Stat:undeliverable ERR:0b1');
    expect(r).toMatchObject({
      id: '7f3A',
      stat: 'UNDELIV',
      statText: 'undeliverable',
      err: '0b1',
      text: null,
      sub: null,
    });
  });

  it('keeps a state it does not know as text only, and a bad date as null', () => {
    expect(parseReceiptText('id:1 done date:2613011200 stat:WEIRD')).toMatchObject({
      stat: null,
      statText: 'WEIRD',
      doneDate: null,
    });
    expect(parseReceiptText('id:1 submit_date:2601020304')?.submitDate).toEqual({
      year: 2026,
      month: 1,
      day: 2,
      hour: 3,
      minute: 4,
      second: 0,
    });
  });

  it('returns null for a text with no receipt keys', () => {
    expect(parseReceiptText('Hello, are you there?')).toBeNull();
  });
});

describe('isDeliveryReceipt / readReceipt', () => {
  const text = Buffer.from(APPENDIX_B, 'latin1');

  it('knows a receipt by esm_class bits 2–5 or by receipted_message_id', () => {
    expect(isDeliveryReceipt({ esmClass: EsmClass.DeliveryReceipt })).toBe(true);
    expect(isDeliveryReceipt({ esmClass: EsmClass.DeliveryReceipt | EsmClass.Udhi })).toBe(true);
    expect(isDeliveryReceipt({ esmClass: 0 })).toBe(false);
    expect(isDeliveryReceipt({ esmClass: EsmClass.IntermediateNotification })).toBe(false);
    expect(isDeliveryReceipt({ esmClass: 0, tlvs: [tlv('receipted_message_id', 'ab')] })).toBe(true);
  });

  it('reads a mobile-originated message as no receipt', () => {
    expect(readReceipt(makePdu('deliver_sm', { sequenceNumber: 1, shortMessage: text }))).toBeNull();
  });

  it('prefers the TLVs to the text', () => {
    const pdu = makePdu('deliver_sm', {
      sequenceNumber: 1,
      esmClass: EsmClass.DeliveryReceipt,
      shortMessage: text,
      tlvs: [
        tlv('receipted_message_id', '75BCD15'),
        tlv('message_state', MessageState.UNDELIVERABLE),
        tlv('network_error_code', { networkType: 3, errorCode: 1 }),
      ],
    });
    expect(readReceipt(pdu)).toMatchObject({
      messageId: '75BCD15',
      stat: 'UNDELIV',
      err: '000',
      networkError: { networkType: 3, errorCode: 1 },
    });
  });

  it('falls back to the text, also when it arrives in message_payload', () => {
    const pdu = makePdu('data_sm', {
      sequenceNumber: 1,
      esmClass: EsmClass.DeliveryReceipt,
      tlvs: [tlv('message_payload', text)],
    });
    expect(readReceipt(pdu)).toMatchObject({ messageId: '0123456789', stat: 'DELIVRD', networkError: null });
  });
});

describe('messageIdsMatch', () => {
  it('matches ignoring case, blanks and leading zeros', () => {
    expect(messageIdsMatch('00AbC1', 'abc1')).toBe(true);
    expect(messageIdsMatch(' 42 ', '0042')).toBe(true);
    expect(messageIdsMatch('0', '000')).toBe(true);
  });

  it('matches a decimal id to the same number in hex, either way round', () => {
    expect(messageIdsMatch('123456789', '75BCD15')).toBe(true);
    expect(messageIdsMatch('75bcd15', '0123456789')).toBe(true);
    expect(messageIdsMatch('18446744073709551615', 'FFFFFFFFFFFFFFFF')).toBe(true);
  });

  it('does not match different ids, non-numeric ids of other spelling, or empty ids', () => {
    expect(messageIdsMatch('123456789', '75BCD16')).toBe(false);
    expect(messageIdsMatch('a-b-c', 'abc')).toBe(false);
    expect(messageIdsMatch('', '')).toBe(false);
    expect(messageIdsMatch('0x10', '16')).toBe(false);
  });
});
