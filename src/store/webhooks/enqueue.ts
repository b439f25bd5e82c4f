/**
 * Where webhook deliveries are written: a row per webhook with its exact body, which is also
 * its work item, inside the transaction of the change they report (style §3).
 */
import { randomFillSync } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { InboundWebhookPayload } from '../../webhooks/payloads.js';
import { insertRows, insertRowsReturning } from '../insert-rows.js';
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

/** 128 random bits per id, taken from a buffer refilled once every this many ids. */
const ID_BYTES = 16;
const IDS_PER_FILL = 256;
const idPool = Buffer.alloc(ID_BYTES * IDS_PER_FILL);
let idOffset = idPool.length;

/**
 * Random rather than the row id, so a webhook-id never repeats across databases or installs:
 * `msg_` and 32 hex digits. Drawn from a pooled buffer, as randomUUID() does internally, but
 * written as one string: the UUID's dashes taken out again were three strings per webhook.
 */
function newWebhookId(): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const id = `msg_${idPool.toString('hex', idOffset, idOffset + ID_BYTES)}`;
  idOffset += ID_BYTES;
  return id;
}

/** Concurrency is limited per origin; an unparseable URL is its own origin (it gives up at once). */
export function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

/** A delivery queued held by the node whose transaction wrote it: that node sends it. */
export interface HeldDelivery {
  readonly deliveryId: number;
  readonly webhookId: string;
  readonly accountId: number;
  readonly kind: DeliveryKind;
  readonly messageId: number;
  readonly url: string;
  readonly origin: string;
  readonly payload: string;
}

/**
 * Room a node has for deliveries it will send itself. A status change's webhook is queued
 * held by the node that made the change, up to `room`, and handed to its sender after the
 * commit: no claim to find it again. The rest wait unheld, for any node to claim.
 */
export interface DeliveryHold {
  readonly holder: string;
  room: number;
  /** Origins whose deliveries the node takes on now (a paused endpoint's wait unheld). */
  readonly accepts: (origin: string) => boolean;
  readonly held: HeldDelivery[];
}

/**
 * Deliveries the API's acceptances queue, held for this node's engine as far as it gave room:
 * like a status change's in the engine (DeliveryHold), they are written held and handed over
 * after the commit, so no claim has to find them again (src/store/messages.ts).
 */
export interface DeliveryHandoff {
  readonly node: string;
  /** Room for up to `n` more; returns how many may be held. */
  take(n: number): number;
  /** Room taken and not used. */
  give(n: number): void;
  /** After the commit: the engine sends these. */
  handOff(held: HeldDelivery[]): void;
}

/**
 * The hold of a transaction, by its Kysely transaction object: set by the engine for the
 * transaction of its turn (src/store/engine-store.ts) and by the API for an acceptance's
 * (src/store/messages.ts), read wherever that transaction queues deliveries, however deep in a
 * status change. Other transactions have none.
 */
const holds = new WeakMap<object, DeliveryHold>();

export function setHold(tx: Kysely<Database>, hold: DeliveryHold): void {
  holds.set(tx, hold);
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

/**
 * Writes deliveries, due at once, inside the caller's transaction (style §3); held by the
 * transaction's node where it has a hold with room. Returns how many wait for any node to
 * claim them.
 */
export async function insertDeliveriesIn(
  tx: Kysely<Database>,
  deliveries: readonly NewDelivery[],
  now: number,
): Promise<number> {
  const hold = holds.get(tx);
  // Deliveries of one message share a URL: parse it once.
  const origins = new Map<string, string>();
  const origin = (url: string) => {
    let o = origins.get(url);
    if (o === undefined) origins.set(url, (o = originOf(url)));
    return o;
  };
  const held: NewDelivery[] = [];
  const unheld: NewDelivery[] = [];
  for (const d of deliveries) {
    if (hold && held.length < hold.room && hold.accepts(origin(d.url))) held.push(d);
    else unheld.push(d);
  }
  const row = (d: NewDelivery, webhookId: string) => [
    webhookId,
    d.accountId,
    d.kind,
    d.messageId,
    d.url,
    origin(d.url),
    d.payload,
    'pending',
    now,
    now,
  ];
  if (hold && held.length > 0) {
    const ids = held.map(() => newWebhookId());
    const back = await insertRowsReturning<{ id: number; webhook_id: string }>(
      tx,
      'webhook_deliveries',
      [...DELIVERY_COLUMNS, 'locked_by'],
      held.map((d, i) => [...row(d, ids[i]!), hold.holder]),
      ['id', 'webhook_id'],
    );
    const idOf = new Map(back.map((r) => [r.webhook_id, Number(r.id)]));
    held.forEach((d, i) => {
      hold.held.push({
        deliveryId: idOf.get(ids[i]!)!,
        webhookId: ids[i]!,
        accountId: d.accountId,
        kind: d.kind,
        messageId: d.messageId,
        url: d.url,
        origin: origin(d.url),
        payload: d.payload,
      });
    });
    hold.room -= held.length;
  }
  await insertRows(
    tx,
    'webhook_deliveries',
    DELIVERY_COLUMNS,
    unheld.map((d) => row(d, newWebhookId())),
  );
  return unheld.length;
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
