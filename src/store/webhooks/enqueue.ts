/**
 * Where webhook deliveries are written: a row per webhook with its exact body, which is also
 * its work item, inside the transaction of the change they report (style §3).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { InboundWebhookPayload } from '../../webhooks/payloads.js';
import { insertRows } from '../insert-rows.js';
import type { Database } from '../schema.js';
import type { DeliveryKind } from './kinds.js';

export interface NewDelivery {
  readonly accountId: number;
  readonly kind: DeliveryKind;
  readonly messageId: number;
  readonly url: string;
  /** The JSON body, exactly as every attempt will send it. */
  readonly payload: string;
}

/** Random rather than the row id, so a webhook-id never repeats across databases or installs. */
function newWebhookId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/** Concurrency is limited per origin; an unparseable URL is its own origin (it gives up at once). */
export function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

const DELIVERY_COLUMNS = [
  'webhook_id',
  'account_id',
  'kind',
  'message_id',
  'url',
  'origin',
  'payload',
  'state',
  'next_attempt_at',
  'created_at',
] as const;

/** Writes deliveries, due at once, inside the caller's transaction (style §3). */
export async function insertDeliveriesIn(
  tx: Kysely<Database>,
  deliveries: readonly NewDelivery[],
  now: number,
): Promise<void> {
  // Deliveries of one message share a URL: parse it once.
  const origins = new Map<string, string>();
  const origin = (url: string) => {
    let o = origins.get(url);
    if (o === undefined) origins.set(url, (o = originOf(url)));
    return o;
  };
  await insertRows(
    tx,
    'webhook_deliveries',
    DELIVERY_COLUMNS,
    deliveries.map((d) => [
      newWebhookId(),
      d.accountId,
      d.kind,
      d.messageId,
      d.url,
      origin(d.url),
      d.payload,
      'pending',
      now,
      now,
    ]),
  );
}

export interface InboundWebhookInput {
  readonly inboundId: number;
  readonly accountId: number;
  readonly url: string;
  readonly payload: InboundWebhookPayload;
  /** Default: the wall clock. */
  readonly now?: number;
}

/**
 * Queues the inbound webhook of a message being stored, inside the transaction storing it.
 * When the delivery is accepted or given up on, the message's completed_at is set.
 */
export async function enqueueInboundWebhook(tx: Kysely<Database>, input: InboundWebhookInput): Promise<void> {
  await insertDeliveriesIn(
    tx,
    [
      {
        accountId: input.accountId,
        kind: 'inbound',
        messageId: input.inboundId,
        url: input.url,
        payload: JSON.stringify(input.payload),
      },
    ],
    input.now ?? Date.now(),
  );
}
