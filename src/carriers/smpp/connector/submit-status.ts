/**
 * What a submit_sm_resp command_status, or a submit that got no response, means for the
 * message. Policy as data: every SMPP 3.4 status has a row, so a new status cannot slip
 * through unclassified; statuses outside the table (vendor codes 0x400–0x4FF) are permanent.
 *
 * Retry is for conditions on the SMSC's side or on the link that go away by themselves;
 * everything that says "this PDU is wrong" is permanent, because sending it again unchanged
 * cannot succeed. ESME_RSUBMITFAIL is permanent: SMSCs use it to refuse a message outright
 * (decisions §8 digit 6 maps to it), and a retried refusal only delays the `rejected` status.
 * `afterMs` is set only where the SMSC told us to back off; otherwise the dispatcher's
 * schedule (src/dispatch/retry-policy.ts) decides when.
 */
import { CommandStatus, type CommandStatusName } from '../pdu/index.js';
import type { RequestFailure } from '../session/index.js';

export type StatusPolicy =
  | { readonly kind: 'retry'; readonly afterMs?: number; readonly slowDown?: boolean }
  | { readonly kind: 'rejected' };

const retry = { kind: 'retry' } as const;
const rejected = { kind: 'rejected' } as const;

export const SUBMIT_STATUS_POLICY: { readonly [N in CommandStatusName]: StatusPolicy } = {
  ESME_ROK: retry, // never consulted: ROK is success
  ESME_RTHROTTLED: { kind: 'retry', afterMs: 1_000, slowDown: true },
  ESME_RMSGQFUL: { kind: 'retry', afterMs: 5_000, slowDown: true },
  ESME_RSYSERR: retry,
  ESME_RX_T_APPN: retry,
  // The SMSC thinks we are not bound (it restarted behind a proxy, say): the link will rebind.
  ESME_RINVBNDSTS: retry,
  ESME_RALYBND: retry,
  ESME_RUNKNOWNERR: retry,
  ESME_RINVMSGLEN: rejected,
  ESME_RINVCMDLEN: rejected,
  ESME_RINVCMDID: rejected,
  ESME_RINVPRTFLG: rejected,
  ESME_RINVREGDLVFLG: rejected,
  ESME_RINVSRCADR: rejected,
  ESME_RINVDSTADR: rejected,
  ESME_RINVMSGID: rejected,
  ESME_RBINDFAIL: rejected,
  ESME_RINVPASWD: rejected,
  ESME_RINVSYSID: rejected,
  ESME_RCANCELFAIL: rejected,
  ESME_RREPLACEFAIL: rejected,
  ESME_RINVSERTYP: rejected,
  ESME_RINVNUMDESTS: rejected,
  ESME_RINVDLNAME: rejected,
  ESME_RINVDESTFLAG: rejected,
  ESME_RINVSUBREP: rejected,
  ESME_RINVESMCLASS: rejected,
  ESME_RCNTSUBDL: rejected,
  ESME_RSUBMITFAIL: rejected,
  ESME_RINVSRCTON: rejected,
  ESME_RINVSRCNPI: rejected,
  ESME_RINVDSTTON: rejected,
  ESME_RINVDSTNPI: rejected,
  ESME_RINVSYSTYP: rejected,
  ESME_RINVREPFLAG: rejected,
  ESME_RINVNUMMSGS: rejected,
  ESME_RINVSCHED: rejected,
  ESME_RINVEXPIRY: rejected,
  ESME_RINVDFTMSGID: rejected,
  ESME_RX_P_APPN: rejected,
  ESME_RX_R_APPN: rejected,
  ESME_RQUERYFAIL: rejected,
  ESME_RINVOPTPARSTREAM: rejected,
  ESME_ROPTPARNOTALLWD: rejected,
  ESME_RINVPARLEN: rejected,
  ESME_RMISSINGOPTPARAM: rejected,
  ESME_RINVOPTPARAMVAL: rejected,
  ESME_RDELIVERYFAILURE: rejected,
};

/**
 * No response at all: always retry. A timed-out or cut-off submit may still have reached the
 * SMSC, so a retry can duplicate it; losing the message instead would be worse.
 */
export const FAILURE_POLICY: { readonly [F in RequestFailure]: StatusPolicy } = {
  timeout: retry,
  closed: retry,
  'bad-response': retry,
  'not-bound': retry,
  stopping: retry,
};

const BY_VALUE = new Map<number, StatusPolicy>(
  Object.entries(SUBMIT_STATUS_POLICY).map(([name, policy]) => [
    CommandStatus[name as CommandStatusName],
    policy,
  ]),
);

export function submitStatusPolicy(commandStatus: number): StatusPolicy {
  return BY_VALUE.get(commandStatus) ?? rejected;
}
