/** When the webhook sender next has something to claim. */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * When a pending delivery nobody holds is next due; null if none. Each origin's earliest is
 * one index seek, so a receiver's deep backlog of later retries is never scanned.
 */
export async function nextDueDelivery(db: Kysely<Database>): Promise<number | null> {
  const result = await sql<{ next: number | string | null }>`
    with recursive o(origin) as (
      select min(origin) from webhook_deliveries where state = 'pending' and locked_by is null
      union all
      select (select min(origin) from webhook_deliveries
              where state = 'pending' and locked_by is null and origin > o.origin)
      from o where o.origin is not null
    )
    select min((select min(w.next_attempt_at) from webhook_deliveries w
                where w.state = 'pending' and w.locked_by is null and w.origin = o.origin)) as next
    from o where o.origin is not null`.execute(db);
  const next = result.rows[0]?.next;
  return next === null || next === undefined ? null : Number(next);
}
