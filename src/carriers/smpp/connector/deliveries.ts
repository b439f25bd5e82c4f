/**
 * deliver_sm / data_sm from the SMSC → a receipt or an inbound message for the engine. The
 * returned promise settles when the engine has it, and only then does the session answer
 * the SMSC (session/session.ts), so nothing is acknowledged that is not recorded.
 */
import type { Logger } from 'pino';
import type { CarrierEvents } from '../../port.js';
import { parseConcat, readReceipt, type Receipt } from '../pdu/index.js';
import type { InboundPdu } from '../session/index.js';
import { inboundAddress } from './addresses.js';
import type { Counters } from './counters.js';
import { Reassembly, type Assembly } from './reassembly.js';
import { receiptState } from './receipt-states.js';
import type { RecentIds } from './recent-ids.js';
import { decodeInbound, userData } from './text-coding.js';

export interface DeliveryContext {
  readonly events: () => CarrierEvents;
  readonly recentIds: RecentIds;
  /** Resolves once the submits outstanding now have their responses (or gave up). */
  readonly submitsSettled: () => Promise<void>;
  readonly counters: Counters;
  readonly logger: Logger;
  readonly reassemblyTimeoutMs: number;
  readonly maxOpenMessages: number;
}

interface MoMeta {
  readonly dataCoding: number;
  readonly receivedAt: number;
}

export interface DeliveryHandler {
  handle(pdu: InboundPdu): Promise<void>;
  /** Hands over incomplete concatenated messages (on stop). */
  flush(): void;
}

export function createDeliveryHandler(ctx: DeliveryContext): DeliveryHandler {
  const raise = async ({ key, meta, parts }: Assembly<MoMeta>) => {
    const octets = Buffer.concat(parts.map((p) => p.octets));
    const { text, problem } = decodeInbound(octets, meta.dataCoding);
    if (problem) ctx.logger.warn({ problem, from: key.from }, 'inbound text decoded with a problem');
    ctx.counters.count('inbound');
    await ctx.events().inbound({ from: key.from, to: key.to, body: text, receivedAt: meta.receivedAt });
  };

  const reassembly = new Reassembly<MoMeta>(ctx.reassemblyTimeoutMs, ctx.maxOpenMessages, (partial) => {
    const missing = partial.key.total - partial.parts.length;
    ctx.logger.warn(
      { key: partial.key, missing },
      'concatenated inbound message incomplete; passing on what arrived',
    );
    ctx.counters.error('inbound-incomplete', `${missing} of ${partial.key.total} parts missing`);
    raise(partial).catch((err: unknown) =>
      ctx.logger.error({ err }, 'incomplete inbound message not recorded'),
    );
  });

  /** `carrierId`: the id as submitted, when a recent submit has it; else the receipt's own. */
  const report = (r: Receipt, messageId: string, carrierId: string | null): Promise<void> => {
    const error = receiptError(r);
    ctx.counters.count('receipts');
    const state = receiptState(r.stat);
    const id = carrierId ?? messageId;
    const at = Date.now();
    return ctx
      .events()
      .receipt(error === null ? { carrierId: id, state, at } : { carrierId: id, state, at, error });
  };

  /** Once the submits outstanding have their answers, the id's form may be known. */
  const reportAfterSubmits = async (r: Receipt, messageId: string) => {
    await ctx.submitsSettled();
    await report(r, messageId, ctx.recentIds.find(messageId));
  };

  // Not async: a receipt whose submit is known (nearly all) goes on without a frame of its own.
  const receipt = (r: Receipt): Promise<void> => {
    const { messageId } = r;
    if (messageId === null) {
      ctx.counters.error('receipt-unreadable', 'receipt without a message id');
      ctx.logger.warn({ receipt: r.parsed }, 'receipt without a message id; acknowledged and dropped');
      return Promise.resolve();
    }
    const carrierId = ctx.recentIds.find(messageId);
    // Some SMSCs send the receipt before the submit_sm_resp; wait for it to learn the id's form.
    return carrierId === null ? reportAfterSubmits(r, messageId) : report(r, messageId, carrierId);
  };

  const inbound = async (pdu: InboundPdu) => {
    const from = inboundAddress(pdu.sourceAddr, pdu.sourceAddrTon);
    const to = inboundAddress(pdu.destinationAddr, pdu.destAddrTon);
    const meta = { dataCoding: pdu.dataCoding, receivedAt: Date.now() };
    const concat = parseConcat(pdu);
    if (concat === null || concat.total === 1) {
      const octets = concat?.body ?? userData(pdu);
      return raise({ key: { from, to, ref: 0, total: 1 }, meta, parts: [{ seq: 1, octets }] });
    }
    const key = { from, to, ref: concat.ref, total: concat.total };
    const whole = reassembly.add(key, concat.seq, concat.body, meta);
    if (!whole) return;
    let delivered = false;
    try {
      await raise(whole);
      delivered = true;
    } finally {
      reassembly.finish(key, delivered);
    }
  };

  return {
    handle(pdu) {
      try {
        const r = readReceipt(pdu);
        return r ? receipt(r) : inbound(pdu);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    flush: () => reassembly.flush(),
  };
}

const ZEROS = /^0*$/;

/** The carrier's error detail of a receipt (`err:` other than zeros, a network error), or null. */
function receiptError(r: Receipt): string | null {
  const err = r.err !== null && !ZEROS.test(r.err) ? `err:${r.err}` : null;
  const network = r.networkError ? `network ${r.networkError.networkType}:${r.networkError.errorCode}` : null;
  return err !== null && network !== null ? `${err} ${network}` : (err ?? network);
}
