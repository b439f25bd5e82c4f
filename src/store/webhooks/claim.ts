/**
 * Claiming due deliveries: origin by origin, so the backlog of one receiver never fills a
 * batch, each under a lease on its own row.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { AccountsTable, Database } from '../schema.js';
import { list, runShaped } from '../shaped-sql.js';
import { isPending } from './pending.js';
import type { DeliveryKind } from './kinds.js';
import type { HeldDelivery } from './enqueue.js';

export interface AccountSecrets {
  readonly current: string;
  readonly previous: string | null;
  /** The previous secret signs too until this time. */
  readonly previousUntil: number | null;
}

/** A delivery held for one attempt, with everything the attempt needs. */
export interface ClaimedDelivery extends HeldDelivery {
  /** Failed attempts so far: where the retry schedule stands. A replay starts again at 0. */
  readonly retryAttempts: number;
  readonly secrets: AccountSecrets;
}

export interface ClaimRequest {
  /** The node that will hold the claimed deliveries until their attempts are recorded. */
  readonly worker: string;
  readonly now: number;
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

/** Claims inside the caller's transaction (the engine's tick). */
export async function claimDeliveriesIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  request: ClaimRequest,
): Promise<ClaimResult> {
  const { worker, now, perOrigin, held } = request;
  const origins = await originsAfter(tx, request.after ?? '', ORIGINS_PER_CLAIM);
  if (origins.length < ORIGINS_PER_CLAIM && request.after !== null) {
    // Wrap around to the origins up to the cursor (itself included).
    for (const o of await originsAfter(tx, '', ORIGINS_PER_CLAIM - origins.length)) {
      if (o > request.after) break;
      origins.push(o);
    }
  }
  const claimed: ClaimedRow[] = [];
  const backlogged: string[] = [];
  let cursor = request.after;
  for (const origin of origins) {
    const room = Math.min(perOrigin(origin) - (held.get(origin) ?? 0), request.limit - claimed.length);
    if (claimed.length >= request.limit) break;
    cursor = origin;
    if (room <= 0) {
      // Held to its limit by this worker: it may well have more due.
      backlogged.push(origin);
      continue;
    }
    const rows = await claimOrigin(tx, dialect, origin, room, worker, now);
    claimed.push(...rows);
    if (rows.length === room) backlogged.push(origin);
  }
  const more = claimed.length >= request.limit || origins.length >= ORIGINS_PER_CLAIM;
  if (claimed.length === 0) return { deliveries: [], cursor, more, backlogged };
  const secrets = await secretsOfIn(tx, [...new Set(claimed.map((d) => d.account_id))]);
  const deliveries = claimed.flatMap((d): ClaimedDelivery[] => {
    const signing = secrets.get(d.account_id);
    if (signing === undefined) return [];
    return [
      {
        deliveryId: d.id,
        retryAttempts: d.retry_attempts,
        webhookId: d.webhook_id,
        accountId: d.account_id,
        kind: d.kind as DeliveryKind,
        messageId: d.message_id,
        url: d.url,
        origin: d.origin,
        payload: d.payload,
        secrets: signing,
      },
    ];
  });
  return { deliveries, cursor, more, backlogged };
}

type ClaimedRow = Awaited<ReturnType<typeof claimOrigin>>[number];

/**
 * Takes up to `limit` of an origin's due deliveries nobody holds, oldest due first. The
 * holder is the row's own (style §5); if the node dies, its deliveries are taken over with
 * its other work (src/store/nodes.ts). One statement: the due select is its guard, and
 * PostgreSQL skips rows another node is claiming. (Given the due filter beside a list of ids
 * instead, SQLite's planner walks the whole due index.)
 */
function claimOrigin(
  tx: Kysely<Database>,
  dialect: Dialect,
  origin: string,
  limit: number,
  worker: string,
  now: number,
) {
  const picked = dialect.pickedRows;
  let due = tx
    .selectFrom('webhook_deliveries')
    .select(sql.raw(picked.column).as('picked'))
    .where(isPending)
    .where('locked_by', 'is', null)
    .where('origin', '=', origin)
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit);
  if (dialect.rowLocks) due = due.forUpdate().skipLocked();
  return tx
    .updateTable('webhook_deliveries')
    .set({ locked_by: worker })
    .where(sql<boolean>`${sql.raw(picked.open)}${due}${sql.raw(picked.close)}`)
    .returning([
      'id',
      'retry_attempts',
      'webhook_id',
      'account_id',
      'kind',
      'message_id',
      'url',
      'origin',
      'payload',
    ])
    .execute();
}

/** The signing secrets of the accounts, read with the claim so a rotation counts at once. */
export async function secretsOfIn(
  tx: Kysely<Database>,
  accountIds: number[],
): Promise<Map<number, AccountSecrets>> {
  if (accountIds.length === 0) return new Map();
  const { rows } = await runShaped<
    Pick<Selectable<AccountsTable>, 'id' | 'webhook_secret' | 'prev_webhook_secret' | 'prev_secret_until'>
  >(
    tx,
    'account-secrets',
    (p) =>
      `select "id", "webhook_secret", "prev_webhook_secret", "prev_secret_until" from "accounts" ` +
      `where "id" ${p.in()}`,
    [list(accountIds)],
  );
  return new Map(
    rows.map((a) => [
      a.id,
      { current: a.webhook_secret, previous: a.prev_webhook_secret, previousUntil: a.prev_secret_until },
    ]),
  );
}

/**
 * Origins with pending deliveries nobody holds after `after`, in order, one index seek each
 * (no scan of a backlog).
 */
async function originsAfter(tx: Kysely<Database>, after: string, limit: number): Promise<string[]> {
  if (limit <= 0) return [];
  const result = await sql<{ origin: string | null }>`
    with recursive o(origin) as (
      select min(origin) from webhook_deliveries
      where state = 'pending' and locked_by is null and origin > ${after}
      union all
      select (select min(origin) from webhook_deliveries
              where state = 'pending' and locked_by is null and origin > o.origin)
      from o where o.origin is not null
    )
    select origin from o where origin is not null limit ${limit}`.execute(tx);
  return result.rows.map((r) => r.origin!);
}
