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

  const receipt = async (r: Receipt) => {
    if (r.messageId === null) {
      ctx.counters.error('receipt-unreadable', 'receipt without a message id');
      ctx.logger.warn({ receipt: r.parsed }, 'receipt without a message id; acknowledged and dropped');
      return;
    }
    let carrierId = ctx.recentIds.find(r.messageId);
    if (carrierId === null) {
      // Some SMSCs send the receipt before the submit_sm_resp; wait for it to learn the id's form.
      await ctx.submitsSettled();
      carrierId = ctx.recentIds.find(r.messageId);
    }
    const error = receiptError(r);
    ctx.counters.count('receipts');
    const base = { carrierId: carrierId ?? r.messageId, state: receiptState(r.stat), at: Date.now() };
    await ctx.events().receipt(error === null ? base : { ...base, error });
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
      const r = readReceipt(pdu);
      return r ? receipt(r) : inbound(pdu);
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
