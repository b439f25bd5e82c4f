/** Queueing a given-up delivery again: same webhook-id and body, a fresh retry schedule. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import { JOB } from '../job-kinds.js';
import { enqueue } from '../outbox.js';
import type { Database } from '../schema.js';
import type { DeliveryState } from './kinds.js';
import { getDeliveryRecord, type DeliveryRecord } from './listing.js';

export type ReplayOutcome =
  | { readonly kind: 'replayed'; readonly delivery: DeliveryRecord }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'not_failed'; readonly state: DeliveryState };

export async function replayDeliveryRecord(
  db: Kysely<Database>,
  dialect: Dialect,
  id: number,
  now: number,
): Promise<ReplayOutcome> {
  const outcome = await db.transaction().execute(async (tx) => {
    let q = tx.selectFrom('webhook_deliveries').select(['state', 'account_id']).where('id', '=', id);
    if (dialect.rowLocks) q = q.forUpdate();
    const row = await q.executeTakeFirst();
    if (!row) return { kind: 'not_found' } as const;
    if (row.state !== 'failed') return { kind: 'not_failed', state: row.state as DeliveryState } as const;
    await tx
      .updateTable('webhook_deliveries')
      .set({ state: 'pending', completed_at: null, next_attempt_at: now })
      .where('id', '=', id)
      .execute();
    await enqueue(tx, [{ kind: JOB.webhook, subjectId: id, accountId: row.account_id, runAt: now }], now);
    return null;
  });
  if (outcome !== null) return outcome;
  return { kind: 'replayed', delivery: (await getDeliveryRecord(db, id))! };
}
