/** Giving leases back, and when the runner next has something to do. */
import type { Kysely } from 'kysely';
import { JOB } from '../job-kinds.js';
import type { Database } from '../schema.js';
import { chunk, IN_CHUNK } from './chunks.js';

/** Frees leases (all of `worker`'s, or only `jobIds`) and makes their deliveries due now. */
export function freeLeases(
  db: Kysely<Database>,
  worker: string,
  jobIds: readonly number[] | null,
  now: number,
): Promise<number> {
  return db.transaction().execute(async (tx) => {
    let freed = 0;
    for (const ids of jobIds === null ? [null] : chunk(jobIds, IN_CHUNK)) {
      let update = tx
        .updateTable('outbox')
        .set({ locked_by: null, locked_until: null })
        .where('kind', '=', JOB.webhook)
        .where('locked_by', '=', worker);
      if (ids !== null) update = update.where('id', 'in', ids);
      const rows = await update.returning('subject_id').execute();
      freed += rows.length;
      for (const subjects of chunk(
        rows.map((r) => r.subject_id),
        IN_CHUNK,
      )) {
        await tx
          .updateTable('webhook_deliveries')
          .set({ next_attempt_at: now })
          .where('id', 'in', subjects)
          .where('state', '=', 'pending')
          .execute();
      }
    }
    return freed;
  });
}

/** When a pending delivery is next due (or an in-flight one's lease runs out); null if none. */
export async function nextDueDelivery(db: Kysely<Database>): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('next'))
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}
