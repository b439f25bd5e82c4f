/** The connector's tables: command_status → outcome, receipt stat → state, address forms. */
import { describe, expect, it } from 'vitest';
import { inboundAddress, sourceAddress } from '../../../../src/carriers/smpp/connector/addresses.js';
import {
  RECEIPT_STATE_BY_STAT,
  SUBMIT_STATUS_POLICY,
  submitStatusPolicy,
} from '../../../../src/carriers/smpp/connector/index.js';
import { CommandStatus } from '../../../../src/carriers/smpp/pdu/index.js';

describe('submit status policy', () => {
  it('has a row for every SMPP 3.4 status', () => {
    expect(Object.keys(SUBMIT_STATUS_POLICY).sort()).toEqual(Object.keys(CommandStatus).sort());
  });

  it.each([
    ['ESME_RTHROTTLED', 'retry'],
    ['ESME_RMSGQFUL', 'retry'],
    ['ESME_RSYSERR', 'retry'],
    ['ESME_RX_T_APPN', 'retry'],
    ['ESME_RINVDSTADR', 'rejected'],
    ['ESME_RINVSRCADR', 'rejected'],
    ['ESME_RINVMSGLEN', 'rejected'],
    ['ESME_RSUBMITFAIL', 'rejected'],
  ] as const)('%s → %s', (name, kind) => {
    expect(submitStatusPolicy(CommandStatus[name]).kind).toBe(kind);
  });

  it('throttling statuses slow the link down and say when to retry', () => {
    expect(SUBMIT_STATUS_POLICY.ESME_RTHROTTLED).toEqual({ kind: 'retry', afterMs: 1000, slowDown: true });
  });

  it('vendor-specific statuses are permanent', () => {
    expect(submitStatusPolicy(0x401).kind).toBe('rejected');
  });
});

describe('receipt states', () => {
  it('maps every stat', () => {
    expect(RECEIPT_STATE_BY_STAT).toEqual({
      DELIVRD: 'delivered',
      EXPIRED: 'expired',
      DELETED: 'deleted',
      UNDELIV: 'failed',
      REJECTD: 'rejected',
      UNKNOWN: 'unknown',
      ACCEPTD: 'enroute',
      ENROUTE: 'enroute',
    });
  });
});

describe('addresses', () => {
  it('inbound numbers become + E.164 when international or plausibly so', () => {
    expect(inboundAddress('447700900123', 1)).toBe('+447700900123');
    expect(inboundAddress('447700900123', 0)).toBe('+447700900123');
    expect(inboundAddress('+447700900123', 0)).toBe('+447700900123');
    expect(inboundAddress('07700900123', 2)).toBe('07700900123');
    expect(inboundAddress('12345', 0)).toBe('12345');
    expect(inboundAddress('BANK', 5)).toBe('BANK');
  });

  it('senders get TON/NPI by form, unless configured', () => {
    expect(sourceAddress('+447700900123', {})).toEqual({ ton: 1, npi: 1, addr: '447700900123' });
    expect(sourceAddress('SMSGW', {})).toEqual({ ton: 5, npi: 0, addr: 'SMSGW' });
    expect(sourceAddress('SMSGW', { ton: 1, npi: 1 })).toEqual({ ton: 1, npi: 1, addr: 'SMSGW' });
  });
});
