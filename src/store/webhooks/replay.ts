/** Queueing a given-up delivery again: same webhook-id and body, a fresh retry schedule. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { DeliveryState } from './kinds.js';
import { getDeliveryRecord, type DeliveryRecord } from './listing.js';

export type ReplayOutcome =
  | { readonly kind: 'replayed'; readonly delivery: DeliveryRecord }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'not_failed'; readonly state: DeliveryState };

export async function replayDeliveryRecord(
  db: Kysely<Database>,
  id: number,
  now: number,
): Promise<ReplayOutcome> {
  // Guarded by its state, so of two replays at once only one queues it.
  const replayed = await db
    .updateTable('webhook_deliveries')
    .set({
      state: 'pending',
      completed_at: null,
      next_attempt_at: now,
      retry_attempts: 0,
      locked_by: null,
    })
    .where('id', '=', id)
    .where('state', '=', 'failed')
    .executeTakeFirst();
  if (Number(replayed.numUpdatedRows) === 0) {
    const row = await db
      .selectFrom('webhook_deliveries')
      .select('state')
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? { kind: 'not_failed', state: row.state as DeliveryState } : { kind: 'not_found' };
  }
  return { kind: 'replayed', delivery: (await getDeliveryRecord(db, id))! };
}
