/**
 * One message → its submit_sm parts → one outcome. Parts go one after another and stop at
 * the first that fails, so a refused message does not send its remaining parts.
 *
 * When a later part fails after earlier ones were accepted:
 * - permanently: the outcome is `rejected`. The message cannot arrive whole; the parts the
 *   SMSC took are named in the reason for the attempt log, and may still reach the handset
 *   as an incomplete message.
 * - temporarily: the outcome is `retry` and the whole message goes again later under a new
 *   concatenation reference, so the handset may hold the first attempt's parts as a second,
 *   incomplete message. Retrying only the missing parts would need their ids across
 *   attempts, which the port does not carry.
 */
import type { Logger } from 'pino';
import type { SubmitOutcome, SubmitRequest } from '../../port.js';
import { chooseDataCoding, commandStatusName, CommandStatus, splitForSubmit } from '../pdu/index.js';
import type { SmppSession, SubmitResult } from '../session/index.js';
import { destinationAddress, sourceAddress } from './addresses.js';
import type { Counters } from './counters.js';
import type { ResolvedConnectorOptions } from './options.js';
import { FAILURE_POLICY, submitStatusPolicy } from './submit-status.js';

export interface SubmitContext {
  readonly session: SmppSession;
  readonly options: ResolvedConnectorOptions;
  readonly counters: Counters;
  readonly logger: Logger;
  /** Concatenation reference for the next multi-part message. */
  readonly nextRef: () => number;
  /** Called with every part submit, so a receipt that overtakes its response can wait for it. */
  readonly track: (submit: Promise<unknown>) => void;
  /** Called with each accepted part's id as its response is read (session.submit's onAccepted). */
  readonly accepted: (messageId: string) => void;
}

export async function submitMessage(ctx: SubmitContext, request: SubmitRequest): Promise<SubmitOutcome> {
  const { options } = ctx;
  const dataCoding = chooseDataCoding(request.body, options.defaultDataCoding);
  const split = splitForSubmit(request.body, dataCoding, options.concatenation, ctx.nextRef());
  if (split.kind !== 'ok') {
    ctx.counters.error('encoding', split.kind);
    return { kind: 'rejected', reason: `cannot encode the message: ${JSON.stringify(split)}` };
  }
  const source = sourceAddress(request.from, { ton: options.sourceTon, npi: options.sourceNpi });
  const dest = destinationAddress(request.to, { ton: options.destTon, npi: options.destNpi });
  const carrierIds: string[] = [];
  const total = split.parts.length;
  for (let index = 0; index < total; index++) {
    const part = split.parts[index]!;
    const submit = ctx.session.submit(
      {
        sourceAddrTon: source.ton,
        sourceAddrNpi: source.npi,
        sourceAddr: source.addr,
        destAddrTon: dest.ton,
        destAddrNpi: dest.npi,
        destinationAddr: dest.addr,
        esmClass: part.esmClass,
        registeredDelivery: request.requestReceipt && options.requestReceipts ? 1 : 0,
        dataCoding,
        shortMessage: part.shortMessage,
        ...(part.tlvs.length > 0 ? { tlvs: part.tlvs } : {}),
      },
      ctx.accepted,
    );
    ctx.track(submit);
    const result = await submit;
    ctx.counters.count('parts');
    const failure = partFailure(ctx, result, { index, total, accepted: carrierIds });
    if (failure) {
      ctx.logger.info(
        { reference: request.reference, to: request.to, outcome: failure },
        'submit not accepted',
      );
      return failure;
    }
    carrierIds.push((result as { messageId: string }).messageId);
  }
  return { kind: 'accepted', carrierIds };
}

interface PartPosition {
  readonly index: number;
  readonly total: number;
  readonly accepted: readonly string[];
}

/** The outcome when this part was not accepted; null when it was. */
function partFailure(ctx: SubmitContext, result: SubmitResult, at: PartPosition): SubmitOutcome | null {
  const where = at.total > 1 ? ` (part ${at.index + 1} of ${at.total})` : '';
  const earlier = at.accepted.length > 0 ? `; parts accepted before: ${at.accepted.join(', ')}` : '';
  if (result.kind === 'failed') {
    ctx.counters.error(result.error, result.detail);
    const policy = FAILURE_POLICY[result.error];
    if (policy.kind === 'rejected') return { kind: 'rejected', reason: `${result.detail}${where}${earlier}` };
    return { kind: 'retry', reason: `${result.error}: ${result.detail}${where}` };
  }
  if (result.commandStatus === CommandStatus.ESME_ROK) return null;
  const name = commandStatusName(result.commandStatus);
  ctx.counters.error(name, `submit_sm_resp ${name}${where}`);
  const policy = submitStatusPolicy(result.commandStatus);
  if (policy.kind === 'rejected') {
    return { kind: 'rejected', reason: `${name}${where}${earlier}`, code: result.commandStatus };
  }
  if (policy.slowDown) ctx.session.slowDown();
  return {
    kind: 'retry',
    reason: `${name}${where}`,
    ...(policy.afterMs !== undefined ? { afterMs: policy.afterMs } : {}),
  };
}
