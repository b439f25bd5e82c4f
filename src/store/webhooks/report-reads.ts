/**
 * What the webhook hooks read inside the transaction that queues a webhook: the message a
 * report is about, its recipients, and an inbound message's fields.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { list, runShaped } from '../shaped-sql.js';
import { chunk, IN_CHUNK } from '../chunks.js';

/** The fields of an inbound message its webhook carries, read inside the storing transaction. */
export async function inboundForWebhookIn(
  tx: Kysely<Database>,
  id: number,
): Promise<{
  id: number;
  from: string;
  to: string;
  body: string;
  ref: string | null;
  receivedAt: number;
  createdAt: number;
} | null> {
  const row = await tx
    .selectFrom('inbound_messages')
    .select(['id', 'sender', 'recipient', 'body', 'ref', 'received_at', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    from: row.sender,
    to: row.recipient,
    body: row.body,
    ref: row.ref,
    receivedAt: row.received_at,
    createdAt: row.created_at,
  };
}

/** What the report sink needs to know about a message whose recipients changed. */
export interface ReportTarget {
  readonly id: number;
  readonly accountId: number;
  readonly ref: string | null;
  /** The message's callbackURL, else the account's callback_url. */
  readonly url: string | null;
  readonly deliveryReport: string | null;
  readonly numParts: number;
  readonly balanceUsed: number;
  readonly completeAt: number | null;
}

export async function reportTargetsIn(
  tx: Kysely<Database>,
  messageIds: readonly number[],
): Promise<ReportTarget[]> {
  const targets: ReportTarget[] = [];
  for (const part of chunk(messageIds, IN_CHUNK)) {
    // Read for every message at its first status change, in the engine's transactions.
    const { rows } = await runShaped<{
      id: number;
      account_id: number;
      ref: string | null;
      callback_url: string | null;
      account_url: string | null;
      delivery_report: string | null;
      num_parts: number;
      balance_used: number | string;
      complete_at: number | null;
    }>(
      tx,
      'report-targets',
      (p) =>
        'select "m"."id", "m"."account_id", "m"."ref", "m"."callback_url", "a"."callback_url" as "account_url", ' +
        '"m"."delivery_report", "m"."num_parts", "m"."balance_used", "m"."complete_at" ' +
        'from "messages" as "m" inner join "accounts" as "a" on "a"."id" = "m"."account_id" ' +
        `where "m"."id" ${p.in()}`,
      [list(part)],
    );
    for (const r of rows) {
      targets.push({
        id: r.id,
        accountId: r.account_id,
        ref: r.ref,
        url: r.callback_url ?? r.account_url,
        deliveryReport: r.delivery_report,
        numParts: r.num_parts,
        balanceUsed: Number(r.balance_used),
        completeAt: r.complete_at,
      });
    }
  }
  return targets;
}

export interface RecipientRow {
  readonly messageId: number;
  readonly msisdn: string;
  readonly status: string;
  readonly code: number;
}

/** Every recipient of the messages, in message order: the body of summary and detailed reports. */
export async function recipientsOfIn(
  tx: Kysely<Database>,
  messageIds: readonly number[],
): Promise<RecipientRow[]> {
  const out: RecipientRow[] = [];
  for (const id of messageIds) {
    const rows = await tx
      .selectFrom('recipients')
      .select(['msisdn', 'status', 'status_code'])
      .where('message_id', '=', id)
      .orderBy('id')
      .execute();
    for (const r of rows)
      out.push({ messageId: id, msisdn: r.msisdn, status: r.status, code: r.status_code });
  }
  return out;
}
