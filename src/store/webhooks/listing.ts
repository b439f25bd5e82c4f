/** Reading deliveries back with their attempts, as the admin API and CLI show them (decisions §9). */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable } from '../schema.js';
import { IN_CHUNK } from '../chunks.js';
import type { DeliveryKind, DeliveryState } from './kinds.js';

export interface AttemptView {
  readonly attemptedAt: number;
  readonly durationMs: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
}

export interface DeliveryRecord {
  readonly id: number;
  readonly webhookId: string;
  readonly accountId: number;
  readonly kind: DeliveryKind;
  readonly messageId: number;
  readonly url: string;
  readonly state: DeliveryState;
  readonly nextAttemptAt: number;
  readonly createdAt: number;
  readonly completedAt: number | null;
  readonly attempts: AttemptView[];
}

export interface DeliveryQuery {
  /** Only this account's deliveries (the public API's own listing). */
  readonly accountId?: number;
  readonly messageId?: number;
  readonly kind?: DeliveryKind;
  readonly state?: DeliveryState;
  readonly limit: number;
  readonly offset: number;
}

/** Newest first, one page. */
export async function listDeliveryRecords(
  db: Kysely<Database>,
  query: DeliveryQuery,
): Promise<{ rows: DeliveryRecord[]; more: boolean }> {
  let q = db.selectFrom('webhook_deliveries').selectAll();
  if (query.accountId !== undefined) q = q.where('account_id', '=', query.accountId);
  if (query.messageId !== undefined) q = q.where('message_id', '=', query.messageId);
  if (query.kind !== undefined) q = q.where('kind', '=', query.kind);
  // In the statement's text, so the partial indexes of pending and failed rows can serve it.
  if (query.state !== undefined) q = q.where('state', '=', sql.lit(query.state));
  const rows = await q
    .orderBy('id', 'desc')
    .limit(query.limit + 1)
    .offset(query.offset)
    .execute();
  return { rows: await withAttempts(db, rows.slice(0, query.limit)), more: rows.length > query.limit };
}

export async function getDeliveryRecord(db: Kysely<Database>, id: number): Promise<DeliveryRecord | null> {
  const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await withAttempts(db, [row]))[0]! : null;
}

async function withAttempts(
  db: Kysely<Database>,
  rows: Selectable<WebhookDeliveriesTable>[],
): Promise<DeliveryRecord[]> {
  const byDelivery = new Map<number, AttemptView[]>();
  const ids = rows.map((r) => r.id);
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    const attempts = await db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', 'in', ids.slice(i, i + IN_CHUNK))
      .orderBy('id')
      .execute();
    for (const a of attempts) {
      const list = byDelivery.get(a.delivery_id) ?? [];
      list.push(toAttempt(a));
      byDelivery.set(a.delivery_id, list);
    }
  }
  return rows.map((r) => toDelivery(r, byDelivery.get(r.id) ?? []));
}

function toAttempt(r: Selectable<WebhookAttemptsTable>): AttemptView {
  return {
    attemptedAt: r.attempted_at,
    durationMs: r.duration_ms,
    status: r.status,
    error: r.error,
    responseExcerpt: r.response_excerpt,
  };
}

function toDelivery(r: Selectable<WebhookDeliveriesTable>, attempts: AttemptView[]): DeliveryRecord {
  return {
    id: r.id,
    webhookId: r.webhook_id,
    accountId: r.account_id,
    kind: r.kind as DeliveryKind,
    messageId: r.message_id,
    url: r.url,
    state: r.state as DeliveryState,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    attempts,
  };
}
