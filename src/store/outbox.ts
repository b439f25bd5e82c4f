import { sql, type Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import { chunk, IN_CHUNK } from './chunks.js';
import { insertRows } from './insert-rows.js';
import { padded, runShaped, type Placeholders } from './shaped-sql.js';
import type { Database } from './schema.js';

export interface OutboxJob {
  readonly id: number;
  readonly kind: string;
  readonly subjectId: number;
  readonly accountId: number;
  readonly runAt: number;
  readonly attempts: number;
}

export interface NewJob {
  readonly kind: string;
  readonly subjectId: number;
  readonly accountId: number;
  readonly runAt: number;
}

export interface ClaimFilter {
  readonly kinds: readonly string[];
  readonly accountId?: number;
}

/** Writes work rows inside the caller's transaction (the outbox pattern). */
export async function enqueue(tx: Kysely<Database>, jobs: readonly NewJob[], now: number): Promise<void> {
  await insertRows(
    tx,
    'outbox',
    ['kind', 'subject_id', 'account_id', 'run_at', 'created_at'],
    jobs.map((j) => [j.kind, j.subjectId, j.accountId, j.runAt, now]),
  );
}

/**
 * Claims up to `limit` due jobs for `worker` until `now + leaseMs`. One statement on both
 * engines: PostgreSQL skips rows other nodes hold; SQLite's single writer makes it atomic.
 */
export async function claimJobs(
  db: Kysely<Database>,
  dialect: Dialect,
  filter: ClaimFilter,
  worker: string,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<OutboxJob[]> {
  const { kinds, accountId } = filter;
  const byAccount = accountId !== undefined;
  const lock = dialect.rowLocks ? ' for update skip locked' : '';
  const { rows } = await runShaped<{
    id: number;
    kind: string;
    subject_id: number;
    account_id: number;
    run_at: number;
    attempts: number;
  }>(
    db,
    `claim|${kinds.length}|${byAccount}|${lock}`,
    (p) =>
      `update "outbox" set "locked_by" = ${p.one()}, "locked_until" = ${p.one()} where "id" in (` +
      `select "id" from "outbox" where ${dueText(p, kinds.length)}` +
      (byAccount ? ` and "account_id" = ${p.one()}` : '') +
      ` order by "run_at", "id" limit ${p.one()}${lock})` +
      ' returning "id", "kind", "subject_id", "account_id", "run_at", "attempts"',
    [worker, now + leaseMs, ...dueParameters(kinds, now), ...(byAccount ? [accountId] : []), limit],
  );
  return rows
    .map((r) => ({
      id: r.id,
      kind: r.kind,
      subjectId: r.subject_id,
      accountId: r.account_id,
      runAt: r.run_at,
      attempts: r.attempts,
    }))
    .sort((a, b) => a.runAt - b.runAt || a.id - b.id);
}

/**
 * Whether a claim would find anything, asked without a transaction. An empty claim is still a
 * write transaction, and on SQLite every one takes the single writer the API waits for; the
 * engine's loops are woken by every batch of POSTs, mostly to find their work already taken.
 */
export async function anyDue(db: Kysely<Database>, kinds: readonly string[], now: number): Promise<boolean> {
  const { rows } = await runShaped<{ id: number }>(
    db,
    `any-due|${kinds.length}`,
    (p) => `select "id" from "outbox" where ${dueText(p, kinds.length)} limit 1`,
    dueParameters(kinds, now),
  );
  return rows.length > 0;
}

/** Jobs of these kinds that a claim may take: due, and not leased (or the lease ran out). */
function dueText(p: Placeholders, kinds: number): string {
  return (
    `"kind" in (${p.list(kinds)}) and "run_at" <= ${p.one()} ` +
    `and ("locked_until" is null or "locked_until" < ${p.one()})`
  );
}

function dueParameters(kinds: readonly string[], now: number): unknown[] {
  return [...kinds, now, now];
}

/** Deletes finished jobs, only while `worker` still holds them. */
export async function completeJobs(
  db: Kysely<Database>,
  ids: readonly number[],
  worker: string,
): Promise<number> {
  let done = 0;
  for (const part of chunk(ids, IN_CHUNK)) {
    const jobs = padded(part);
    const result = await runShaped(
      db,
      `complete|${jobs.length}`,
      (p) => `delete from "outbox" where "id" in (${p.list(jobs.length)}) and "locked_by" = ${p.one()}`,
      [...jobs, worker],
    );
    done += Number(result.numAffectedRows ?? 0);
  }
  return done;
}

/** Gives back leases `worker` holds (all of them, or only `ids`), due again at once. */
export async function unlockJobs(
  db: Kysely<Database>,
  worker: string,
  ids?: readonly number[],
): Promise<number> {
  let update = db
    .updateTable('outbox')
    .set({ locked_by: null, locked_until: null })
    .where('locked_by', '=', worker);
  if (ids !== undefined) {
    if (ids.length === 0) return 0;
    update = update.where('id', 'in', ids);
  }
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Puts a job back for a later attempt, only while `worker` still holds it. */
export async function retryJob(
  db: Kysely<Database>,
  id: number,
  worker: string,
  runAt: number,
  error: string | null,
): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set((eb) => ({
      run_at: runAt,
      attempts: eb('attempts', '+', 1),
      locked_by: null,
      locked_until: null,
      last_error: error,
    }))
    .where('id', '=', id)
    .where('locked_by', '=', worker)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** When a job of these kinds next becomes claimable (due, or its lease runs out); null if none. */
export async function nextDue(db: Kysely<Database>, kinds: readonly string[]): Promise<number | null> {
  const row = await db
    .selectFrom('outbox')
    .select(sql<number | null>`min(coalesce(locked_until, run_at))`.as('next'))
    .where('kind', 'in', kinds)
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}

/** Accounts that have jobs of `kind`, walked in index order without scanning every row. */
export async function accountsWithWork(db: Kysely<Database>, kind: string, limit: number): Promise<number[]> {
  const { rows } = await runShaped<{ id: number | string | null }>(
    db,
    'accounts-with-work',
    (p) => `
    with recursive a(id) as (
      select min(account_id) from outbox where kind = ${p.one()}
      union all
      select (select min(account_id) from outbox where kind = ${p.one()} and account_id > a.id) from a where a.id is not null
    )
    select id from a where id is not null limit ${p.one()}`,
    [kind, kind, limit],
  );
  return rows.map((r) => Number(r.id));
}
