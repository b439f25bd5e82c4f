import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { formatSmppTime, parseSmppTime } from '../../src/smpp-server/smpp-time.js';
import { receiptText } from '../../src/smpp-server/deliver-pdu.js';

describe('SMSGW_SMPP_SERVER_* configuration', () => {
  it('is off unless the port is set', () => {
    expect(loadConfig({}).smppServer).toBeNull();
    expect(loadConfig({ SMSGW_SMPP_SERVER_PORT: '2775' }).smppServer).toEqual({
      port: 2775,
      tls: null,
      idleMs: 300_000,
      reassemblyMs: 60_000,
    });
  });

  it('takes TLS files only as a pair, and durations as durations', () => {
    expect(
      loadConfig({
        SMSGW_SMPP_SERVER_PORT: '0',
        SMSGW_SMPP_SERVER_TLS_CERT: '/c.pem',
        SMSGW_SMPP_SERVER_TLS_KEY: '/k.pem',
        SMSGW_SMPP_SERVER_IDLE: '30s',
      }).smppServer,
    ).toMatchObject({ tls: { certFile: '/c.pem', keyFile: '/k.pem' }, idleMs: 30_000 });
    expect(() => loadConfig({ SMSGW_SMPP_SERVER_PORT: '0', SMSGW_SMPP_SERVER_TLS_CERT: '/c.pem' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ SMSGW_SMPP_SERVER_PORT: 'x' })).toThrow(/SMSGW_SMPP_SERVER_PORT/);
    expect(() => loadConfig({ SMSGW_SMPP_SERVER_PORT: '1', SMSGW_SMPP_SERVER_IDLE: 'soon' })).toThrow(
      /SMSGW_SMPP_SERVER_IDLE/,
    );
  });
});

describe('SMPP time fields', () => {
  const now = Date.parse('2026-11-27T12:00:00Z');
  it('reads absolute times with their quarter-hour offset', () => {
    expect(parseSmppTime('261127150000000+', now)).toEqual({
      kind: 'at',
      ms: Date.parse('2026-11-27T15:00:00Z'),
    });
    expect(parseSmppTime('261127150000004+', now)).toEqual({
      kind: 'at',
      ms: Date.parse('2026-11-27T14:00:00Z'),
    });
    expect(parseSmppTime('261127150000008-', now)).toEqual({
      kind: 'at',
      ms: Date.parse('2026-11-27T17:00:00Z'),
    });
  });
  it('reads relative times from now', () => {
    expect(parseSmppTime('000001023000000R', now)).toEqual({
      kind: 'at',
      ms: Date.parse('2026-11-28T14:30:00Z'),
    });
  });
  it('takes empty as none and anything else as invalid', () => {
    expect(parseSmppTime('', now)).toEqual({ kind: 'none' });
    for (const bad of ['2611271500', '261327150000000+', '26112715000000+', 'abcdefghijklmnoR'])
      expect(parseSmppTime(bad, now), bad).toEqual({ kind: 'invalid' });
  });
  it('writes query_sm final_date in UTC', () => {
    expect(formatSmppTime(Date.parse('2026-11-27T15:04:05.678Z'))).toBe('261127150405000+');
  });
});

describe('receipt text', () => {
  it('has the decisions §21 form, with only printable ASCII in text:', () => {
    expect(
      receiptText({
        kind: 'receipt',
        id: '42',
        recipient: '+447700900001',
        sender: 'Shop',
        stat: 'UNDELIV',
        submitAt: Date.parse('2026-11-27T15:04:00Z'),
        doneAt: Date.parse('2026-11-27T15:05:00Z'),
        text: 'Grüße',
      }),
    ).toBe(
      'id:42 sub:001 dlvrd:0 submit date:2611271504 done date:2611271505 stat:UNDELIV err:000 text:Gr??e',
    );
  });
});
