/**
 * Where deliver_sm for customers enter their queue: inside the transaction of the change they
 * report (style §3), beside the webhooks. A receipt is queued when a recipient of a message
 * submitted over SMPP with registered_delivery reaches a final status; an MO when its account
 * holds a receiver bind on a live node.
 */
import { isFinal } from '../domain/status.js';
import type { InboundStoredSink } from '../store/inbound.js';
import { accountsBoundForMoIn } from '../store/smpp/binds.js';
import { insertSmppDeliveriesIn, type NewSmppDelivery } from '../store/smpp/deliveries.js';
import { receiptSourcesIn } from '../store/smpp/submits.js';
import type { TransitionSink } from '../store/transitions.js';
import { STAT_OF_STATUS, type DeliveryPayload } from './deliver-pdu.js';

/** registered_delivery bits 0–1 (SMPP 3.4 §5.2.17): 1 = every final outcome, 2 = failures only. */
function wantsReceipt(registeredDelivery: number, delivered: boolean): boolean {
  const mode = registeredDelivery & 0x03;
  return mode === 1 || (mode === 2 && !delivered);
}

export function smppReceiptSink(): TransitionSink {
  return async (tx, changed) => {
    const finals = changed.filter((c) => isFinal(c.status));
    if (finals.length === 0) return;
    const sources = await receiptSourcesIn(
      tx,
      finals.map((c) => c.messageId),
    );
    if (sources.size === 0) return;
    const rows: NewSmppDelivery[] = [];
    for (const c of finals) {
      const source = sources.get(c.messageId);
      const stat = STAT_OF_STATUS[c.status];
      if (!source || !stat || !wantsReceipt(source.registeredDelivery, c.status === 'delivered')) continue;
      for (const id of source.receiptIds) {
        const payload: DeliveryPayload = {
          kind: 'receipt',
          id,
          recipient: c.msisdn,
          sender: source.sender,
          stat,
          submitAt: source.createdAt,
          doneAt: c.at,
          text: [...source.body].slice(0, 20).join(''),
        };
        rows.push({ accountId: source.accountId, kind: 'receipt', payload: JSON.stringify(payload) });
      }
    }
    await insertSmppDeliveriesIn(tx, rows, changed[0]!.at);
  };
}

export function smppInboundSink(): InboundStoredSink {
  return async (tx, stored) => {
    const accounts = stored.flatMap((s) => (s.record.accountId === null ? [] : [s.record.accountId]));
    const bound = await accountsBoundForMoIn(tx, [...new Set(accounts)]);
    if (bound.size === 0) return;
    const rows: NewSmppDelivery[] = [];
    for (const { record } of stored) {
      if (record.accountId === null || !bound.has(record.accountId)) continue;
      const payload: DeliveryPayload = {
        kind: 'mo',
        from: record.sender,
        to: record.recipient,
        body: record.body,
      };
      rows.push({ accountId: record.accountId, kind: 'mo', payload: JSON.stringify(payload) });
    }
    await insertSmppDeliveriesIn(tx, rows, stored[0]!.record.createdAt);
  };
}

/** Both sinks in one transaction, the webhook one first. */
export function bothTransitionSinks(a: TransitionSink, b: TransitionSink): TransitionSink {
  return async (tx, changed) => {
    await a(tx, changed);
    await b(tx, changed);
  };
}

export function bothInboundSinks(a: InboundStoredSink, b: InboundStoredSink): InboundStoredSink {
  return async (tx, stored) => {
    await a(tx, stored);
    await b(tx, stored);
  };
}
