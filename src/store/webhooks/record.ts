/**
 * Writing attempts down: every attempt gets its row, and each delivery moves on (delivered,
 * failed, due again later, or handed back unattempted) only while this node still holds it
 * (style §5, §7).
 */
import type { Kysely } from 'kysely';
import { insertRows } from '../insert-rows.js';
import { list, rows as tableOf, runShaped } from '../shaped-sql.js';
import type { Database } from '../schema.js';
import type { ClaimedDelivery } from './claim.js';
import { chunk, IN_CHUNK } from '../chunks.js';

export interface AttemptRecord {
  readonly attemptedAt: number;
  readonly durationMs: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly responseExcerpt: string;
}

export type DeliveryNext =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'failed' }
  | { readonly kind: 'retry'; readonly at: number }
  /** Not attempted (its endpoint is paused, or the node is stopping): any node may take it. */
  | { readonly kind: 'release' };

export interface DeliveryResult {
  readonly delivery: Pick<ClaimedDelivery, 'deliveryId' | 'kind' | 'messageId' | 'origin'>;
  /** null for a delivery handed back without an attempt. */
  readonly attempt: AttemptRecord | null;
  readonly next: DeliveryNext;
}

const ATTEMPT_COLUMNS = [
  'delivery_id',
  'attempted_at',
  'duration_ms',
  'status',
  'error',
  'response_excerpt',
] as const;

/** Records a batch inside the caller's transaction (the engine's turn). */
export async function recordAttemptsIn(
  tx: Kysely<Database>,
  worker: string,
  results: readonly DeliveryResult[],
  now: number,
): Promise<void> {
  if (results.length === 0) return;
  // Every attempt is stored, even one whose delivery was taken over: the request was made.
  await insertRows(
    tx,
    'webhook_attempts',
    ATTEMPT_COLUMNS,
    results.flatMap((r) =>
      r.attempt === null
        ? []
        : [
            [
              r.delivery.deliveryId,
              r.attempt.attemptedAt,
              r.attempt.durationMs,
              r.attempt.status,
              r.attempt.error,
              r.attempt.responseExcerpt === '' ? null : r.attempt.responseExcerpt,
            ],
          ],
    ),
  );
  // A delivery moves on only while this node holds it (style §5); each guarded UPDATE also
  // says which of them were still held.
  const moved = new Set<number>();
  for (const state of ['delivered', 'failed'] as const) {
    const ids = results.filter((r) => r.next.kind === state).map((r) => r.delivery.deliveryId);
    for (const part of chunk(ids, IN_CHUNK)) {
      const { rows } = await runShaped<{ id: number }>(
        tx,
        'delivery-done',
        (p) =>
          `update "webhook_deliveries" set "state" = ${p.one()}, "completed_at" = ${p.one()}, ` +
          `"attempts" = "attempts" + 1, "locked_by" = null ` +
          `where "id" ${p.in()} and "locked_by" = ${p.one()} returning "id"`,
        [state, now, list(part), worker],
      );
      for (const r of rows) moved.add(r.id);
    }
  }
  const retries = results.flatMap((r) =>
    r.next.kind === 'retry' ? [{ id: r.delivery.deliveryId, at: r.next.at }] : [],
  );
  for (const part of chunk(retries, IN_CHUNK)) {
    for (const id of await retryLater(tx, worker, part)) moved.add(id);
  }
  const released = results.filter((r) => r.next.kind === 'release').map((r) => r.delivery.deliveryId);
  for (const part of chunk(released, IN_CHUNK)) {
    await runShaped(
      tx,
      'delivery-release',
      (p) =>
        `update "webhook_deliveries" set "locked_by" = null where "id" ${p.in()} and "locked_by" = ${p.one()}`,
      [list(part), worker],
    );
  }
  // Attempts whose delivery this node no longer held still count.
  const others = results
    .filter((r) => r.attempt !== null && !moved.has(r.delivery.deliveryId))
    .map((r) => r.delivery.deliveryId);
  for (const part of chunk(others, IN_CHUNK)) {
    await runShaped(
      tx,
      'delivery-attempted',
      (p) => `update "webhook_deliveries" set "attempts" = "attempts" + 1 where "id" ${p.in()}`,
      [list(part)],
    );
  }
  // decisions §10: an inbound message is completed once its webhook is accepted or given up on.
  const inbound = results
    .filter(
      (r) =>
        (r.next.kind === 'delivered' || r.next.kind === 'failed') &&
        r.delivery.kind === 'inbound' &&
        moved.has(r.delivery.deliveryId),
    )
    .map((r) => r.delivery.messageId);
  for (const part of chunk(inbound, IN_CHUNK)) {
    await runShaped(
      tx,
      'inbound-completed',
      (p) =>
        `update "inbound_messages" set "completed_at" = ${p.one()} ` +
        `where "id" ${p.in()} and "completed_at" is null`,
      [now, list(part)],
    );
  }
}

/**
 * Deliveries due again, each at its own time (the jitter makes every one different), in one
 * UPDATE … FROM a table of rows rather than one UPDATE each; returns those this node still held.
 */
async function retryLater(
  tx: Kysely<Database>,
  worker: string,
  retries: readonly { id: number; at: number }[],
): Promise<number[]> {
  const result = await runShaped<{ id: number }>(
    tx,
    'delivery-retry',
    (p) => `with v (id, at) as (${p.rows(['bigint', 'bigint'])})
    update webhook_deliveries set
      next_attempt_at = v.at,
      retry_attempts = webhook_deliveries.retry_attempts + 1,
      attempts = webhook_deliveries.attempts + 1,
      locked_by = null
    from v
    where webhook_deliveries.id = v.id and webhook_deliveries.locked_by = ${p.one()}
    returning webhook_deliveries.id`,
    [tableOf(retries.map((r) => [r.id, r.at])), worker],
  );
  return result.rows.map((r) => r.id);
}
