/**
 * Where webhooks enter the queue: inside the transaction of the change they report (style §3),
 * so a status change and its webhook commit together or not at all.
 */
import { boundedCache } from '../bounded-cache.js';
import type { DeliveryReportType } from '../domain/delivery-report.js';
import { isDeliveryReportType } from '../domain/delivery-report.js';
import { emptyCounts, isFinal, isStatus, type Status } from '../domain/status.js';
import type { Changed, TransitionSink } from '../store/transitions.js';
import type { InboundStoredSink } from '../store/inbound.js';
import {
  insertDeliveriesIn,
  recipientsOfIn,
  reportTargetsIn,
  type NewDelivery,
  type RecipientRow,
  type ReportTarget,
} from '../store/webhooks.js';
import {
  detailedReport,
  inboundPayload,
  recipientReport,
  summaryReport,
  type DeliveryReport,
  type ReportedRecipient,
} from './payloads.js';

export interface QueueHookOptions {
  /**
   * Told that deliveries were queued for any node to claim, to wake the webhook sender. It
   * runs before the commit, so the sender must expect its first look to find nothing yet.
   */
  readonly onQueued?: () => void;
}

/** Which changes of a message each report type reports (interface.md Events, decisions §10). */
const REPORTS_CHANGE: Record<'per_recipient' | 'per_recipient_final', (status: Status) => boolean> = {
  // Every change after creation: submitted, sent, then the final one.
  per_recipient: () => true,
  per_recipient_final: isFinal,
};

/**
 * The TransitionSink of the engine: for each message touched, its delivery report type and URL
 * (the message's callbackURL, else the account's callback_url) decide what is queued. No type
 * or no URL: nothing.
 */
export function createReportSink(options: QueueHookOptions = {}): TransitionSink {
  const silent = createSilentMessages();
  return async (tx, changed) => {
    if (changed.length === 0) return;
    const byMessage = new Map<number, Changed[]>();
    for (const c of changed) {
      if (silent.has(c.messageId)) continue;
      const list = byMessage.get(c.messageId) ?? [];
      list.push(c);
      byMessage.set(c.messageId, list);
    }
    if (byMessage.size === 0) return;
    const read = await reportTargetsIn(tx, [...byMessage.keys()]);
    for (const t of read) if (t.deliveryReport === null) silent.add(t.id);
    const targets = read.filter(
      (t): t is ReportTarget & { url: string; deliveryReport: DeliveryReportType } =>
        t.url !== null && isDeliveryReportType(t.deliveryReport),
    );
    if (targets.length === 0) return;

    // A message completed in this transaction: it is complete now, and a change here took one
    // of its recipients to a final status, so that recipient (and the message) was open before.
    const completed = targets.filter(
      (t) =>
        (t.deliveryReport === 'summary' || t.deliveryReport === 'detailed') &&
        t.completeAt !== null &&
        byMessage.get(t.id)!.some((c) => isFinal(c.status)),
    );
    const recipients = new Map<number, RecipientRow[]>();
    if (completed.length > 0) {
      for (const r of await recipientsOfIn(
        tx,
        completed.map((t) => t.id),
      )) {
        const list = recipients.get(r.messageId) ?? [];
        list.push(r);
        recipients.set(r.messageId, list);
      }
    }

    const deliveries: NewDelivery[] = [];
    const queue = (t: ReportTarget & { url: string }, payload: DeliveryReport) =>
      deliveries.push({
        accountId: t.accountId,
        kind: 'delivery_report',
        messageId: t.id,
        url: t.url,
        payload: JSON.stringify(payload),
      });
    for (const t of targets) {
      const type = t.deliveryReport;
      if (type === 'per_recipient' || type === 'per_recipient_final') {
        for (const c of byMessage.get(t.id)!) {
          if (!REPORTS_CHANGE[type](c.status)) continue;
          // A recipient's share of balance_used: sent has just reached the carrier, submitted
          // has not yet, and a final status says whether it ever did.
          const paid = c.status === 'sent' || (isFinal(c.status) && c.reachedCarrier);
          queue(
            t,
            recipientReport(
              t,
              { msisdn: c.msisdn, status: c.status, code: c.code },
              paid ? t.numParts : 0,
              c.at,
            ),
          );
        }
      } else if (completed.includes(t)) {
        const rows = (recipients.get(t.id) ?? []).flatMap((r): ReportedRecipient[] =>
          isStatus(r.status) ? [{ msisdn: r.msisdn, status: r.status, code: r.code }] : [],
        );
        const at = t.completeAt!;
        if (type === 'summary') {
          const counts = emptyCounts();
          for (const r of rows) counts[r.status] += 1;
          queue(t, summaryReport(t, counts, at));
        } else {
          queue(t, detailedReport(t, rows, at));
        }
      }
    }
    if (deliveries.length === 0) return;
    if ((await insertDeliveriesIn(tx, deliveries, changed[0]!.at)) > 0) options.onQueued?.();
  };
}

/** Messages remembered as silent; beyond this the oldest are forgotten (and read again if they change). */
const SILENT_MESSAGES = 100_000;

/**
 * Messages sent with `delivery_report: null`. A message's delivery_report is fixed when it is
 * accepted, so such a message never reports, and its later changes (sent, then final) need not
 * read it again: in the ingest bench that read was the engine's costliest statement.
 */
function createSilentMessages() {
  const ids = boundedCache<number, true>(SILENT_MESSAGES);
  return {
    has: (id: number) => ids.has(id),
    add: (id: number) => void ids.set(id, true),
  };
}

/**
 * The inbound path's sink (src/store/inbound.ts): queues the webhook of each stored message
 * that has one, in the transaction that stores them.
 */
export function createInboundSink(options: QueueHookOptions = {}): InboundStoredSink {
  return async (tx, stored) => {
    const deliveries: NewDelivery[] = [];
    for (const { record, url } of stored) {
      if (url === null || record.accountId === null) continue;
      deliveries.push({
        accountId: record.accountId,
        kind: 'inbound',
        messageId: record.id,
        url,
        payload: JSON.stringify(
          inboundPayload({
            id: record.id,
            from: record.sender,
            to: record.recipient,
            body: record.body,
            ref: record.ref,
            receivedAt: record.receivedAt,
          }),
        ),
      });
    }
    if (deliveries.length === 0) return;
    if ((await insertDeliveriesIn(tx, deliveries, stored[0]!.record.createdAt)) > 0) options.onQueued?.();
  };
}
