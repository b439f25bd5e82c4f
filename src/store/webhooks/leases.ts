/** Giving leases back, and when the runner next has something to do. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { isPending } from './pending.js';
import { chunk, IN_CHUNK } from '../chunks.js';

/** Frees leases (all of `worker`'s, or only `deliveryIds`) and makes their deliveries due now. */
export async function freeLeases(
  db: Kysely<Database>,
  worker: string,
  deliveryIds: readonly number[] | null,
  now: number,
): Promise<number> {
  let freed = 0;
  for (const ids of deliveryIds === null ? [null] : chunk(deliveryIds, IN_CHUNK)) {
    // Held rows are pending: the state narrows a worker's whole release to the backlog.
    let update = db
      .updateTable('webhook_deliveries')
      .set({ locked_by: null, next_attempt_at: now })
      .where(isPending)
      .where('locked_by', '=', worker);
    if (ids !== null) update = update.where('id', 'in', ids);
    const result = await update.executeTakeFirst();
    freed += Number(result.numUpdatedRows);
  }
  return freed;
}

/** When a pending delivery is next due (or an in-flight one's lease runs out); null if none. */
export async function nextDueDelivery(db: Kysely<Database>): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('next'))
    .where(isPending)
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}
