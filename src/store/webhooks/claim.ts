/**
 * Claiming due deliveries: origin by origin, so the backlog of one receiver never fills a
 * batch, each under a lease on its outbox job.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import { JOB } from '../job-kinds.js';
import type { Database } from '../schema.js';
import type { DeliveryKind } from './kinds.js';

export interface AccountSecrets {
  readonly current: string;
  readonly previous: string | null;
  /** The previous secret signs too until this time. */
  readonly previousUntil: number | null;
}

/** A delivery claimed for one attempt, with everything the attempt needs. */
export interface ClaimedDelivery {
  readonly jobId: number;
  /** Failed attempts of this job so far: where the retry schedule stands. A replay starts again at 0. */
  readonly jobAttempts: number;
  readonly deliveryId: number;
  readonly webhookId: string;
  readonly accountId: number;
  readonly kind: DeliveryKind;
  readonly messageId: number;
  readonly url: string;
  readonly origin: string;
  readonly payload: string;
  readonly secrets: AccountSecrets;
}

export interface ClaimRequest {
  readonly worker: string;
  readonly now: number;
  readonly leaseMs: number;
  /** Most deliveries in all. */
  readonly limit: number;
  /** Most deliveries this worker may hold of an origin, counting those in `held`. */
  readonly perOrigin: (origin: string) => number;
  /** Deliveries this worker already holds, by origin. */
  readonly held: ReadonlyMap<string, number>;
  /** Origins are walked from just after this one, so every origin gets its turn. */
  readonly after: string | null;
}

export interface ClaimResult {
  readonly deliveries: ClaimedDelivery[];
  /** Where the next claim's walk starts. */
  readonly cursor: string | null;
  /** The claim stopped at `limit` or at the origins it looks at: claiming again may find more. */
  readonly more: boolean;
  /** Origins that may have more due: their due deliveries filled their room, or they had none. */
  readonly backlogged: string[];
}

/** Origins looked at per claim; the cursor carries the walk on from there next time. */
const ORIGINS_PER_CLAIM = 64;

export function claimDeliveries(
  db: Kysely<Database>,
  dialect: Dialect,
  request: ClaimRequest,
): Promise<ClaimResult> {
  return db.transaction().execute(async (tx) => {
    const { worker, now, leaseMs, perOrigin, held } = request;
    const origins = await originsAfter(tx, request.after ?? '', ORIGINS_PER_CLAIM);
    if (origins.length < ORIGINS_PER_CLAIM && request.after !== null) {
      // Wrap around to the origins up to the cursor (itself included).
      for (const o of await originsAfter(tx, '', ORIGINS_PER_CLAIM - origins.length)) {
        if (o > request.after) break;
        origins.push(o);
      }
    }
    const ids: number[] = [];
    const backlogged: string[] = [];
    let cursor = request.after;
    for (const origin of origins) {
      const room = Math.min(perOrigin(origin) - (held.get(origin) ?? 0), request.limit - ids.length);
      if (ids.length >= request.limit) break;
      cursor = origin;
      if (room <= 0) {
        // Held to its limit by this worker: it may well have more due.
        backlogged.push(origin);
        continue;
      }
      const due = await tx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('state', '=', 'pending')
        .where('origin', '=', origin)
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(room)
        .execute();
      for (const d of due) ids.push(d.id);
      if (due.length === room) backlogged.push(origin);
    }
    const more = ids.length >= request.limit || origins.length >= ORIGINS_PER_CLAIM;
    if (ids.length === 0) return { deliveries: [], cursor, more, backlogged };

    // The outbox lease is the guard (style §5); the delivery rows only point at the work.
    // Jobs are found by subject first: given the due filter too, SQLite's planner walks the
    // whole (kind, run_at) index instead, a full scan of a deep backlog per claim.
    const candidates = await tx
      .selectFrom('outbox')
      .select('id')
      .where('subject_id', 'in', ids)
      .where('kind', '=', JOB.webhook)
      .execute();
    if (candidates.length === 0) return { deliveries: [], cursor, more, backlogged };
    let unlocked = tx
      .selectFrom('outbox')
      .select('id')
      .where(
        'id',
        'in',
        candidates.map((c) => c.id),
      )
      .where('run_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]));
    if (dialect.rowLocks) unlocked = unlocked.forUpdate().skipLocked();
    const jobs = await tx
      .updateTable('outbox')
      .set({ locked_by: worker, locked_until: now + leaseMs })
      .where('id', 'in', unlocked)
      .returning(['id', 'subject_id', 'attempts'])
      .execute();
    if (jobs.length === 0) return { deliveries: [], cursor, more, backlogged };
    const claimed = jobs.map((j) => j.subject_id);
    // An attempt in flight is next tried when its lease runs out (if its worker dies), and
    // keeping that in next_attempt_at keeps it out of the next claim's due rows.
    await tx
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: now + leaseMs })
      .where('id', 'in', claimed)
      .execute();
    const rows = await tx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('accounts as a', 'a.id', 'd.account_id')
      .select([
        'd.id',
        'd.webhook_id',
        'd.account_id',
        'd.kind',
        'd.message_id',
        'd.url',
        'd.origin',
        'd.payload',
        'a.webhook_secret',
        'a.prev_webhook_secret',
        'a.prev_secret_until',
      ])
      .where('d.id', 'in', claimed)
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    const deliveries = jobs.flatMap((job): ClaimedDelivery[] => {
      const d = byId.get(job.subject_id);
      if (!d) return [];
      return [
        {
          jobId: job.id,
          jobAttempts: job.attempts,
          deliveryId: d.id,
          webhookId: d.webhook_id,
          accountId: d.account_id,
          kind: d.kind as DeliveryKind,
          messageId: d.message_id,
          url: d.url,
          origin: d.origin,
          payload: d.payload,
          secrets: {
            current: d.webhook_secret,
            previous: d.prev_webhook_secret,
            previousUntil: d.prev_secret_until,
          },
        },
      ];
    });
    return { deliveries, cursor, more, backlogged };
  });
}

/** Origins with pending deliveries after `after`, in order, one index seek each (no scan of a backlog). */
async function originsAfter(tx: Kysely<Database>, after: string, limit: number): Promise<string[]> {
  if (limit <= 0) return [];
  const result = await sql<{ origin: string | null }>`
    with recursive o(origin) as (
      select min(origin) from webhook_deliveries where state = 'pending' and origin > ${after}
      union all
      select (select min(origin) from webhook_deliveries where state = 'pending' and origin > o.origin)
      from o where o.origin is not null
    )
    select origin from o where origin is not null limit ${limit}`.execute(tx);
  return result.rows.map((r) => r.origin!);
}
