import { sql, type Kysely } from 'kysely';
import type { SubmitOutcome } from '../carriers/port.js';
import type { Dialect } from './dialect.js';
import { adoptOrphans } from './receipts.js';
import { insertRows } from './insert-rows.js';
import { isUniqueViolation } from './unique-violation.js';
import { list, rows as tableOf, runShaped } from './shaped-sql.js';
import type { Database } from './schema.js';
import { applyChanges, type Change, type Changed, type TransitionSink } from './transitions.js';
import { openBudgetIn, spendBudgetIn, type SendMeter } from './send-budgets.js';

/** One recipient to submit, with what the carrier needs. */
export interface SendWork {
  readonly recipientId: number;
  readonly messageId: number;
  readonly accountId: number;
  readonly to: string;
  readonly from: string;
  readonly body: string;
  /** Earlier attempts of this recipient. */
  readonly attempts: number;
  /** When this node claimed it (the attempt's start in the log). */
  readonly claimedAt: number;
}

export interface SubmitResult {
  readonly work: SendWork;
  readonly outcome: SubmitOutcome;
  /** When the carrier answered. */
  readonly at: number;
}

/**
 * Recipients accepted due at once that the accepting node sends itself, without claiming them
 * from the database (src/engine/send-room.ts says why and how much): they are written held by
 * `node`, and handed to its engine once the acceptance has committed.
 */
export interface SendHandoff {
  readonly node: string;
  /** Room for up to `n` more; returns how many may be held. */
  take(n: number): number;
  /** Room taken and not used (the transaction rolled back). */
  give(n: number): void;
  /** After the commit: the engine submits these. */
  handOff(work: SendWork[]): void;
}

/** Delay before the next attempt after `attempts` failed ones, or null to give up (aborted). */
export type RetryDelay = (attempts: number) => number | null;

/** What a claim needs of a message; immutable once accepted, so it may be cached. */
export interface MessageForSending {
  readonly sender: string;
  readonly body: string;
  readonly expiresAt: number | null;
}

export interface MessageCache {
  get(id: number): MessageForSending | undefined;
  set(id: number, message: MessageForSending): void;
}

/** Accounts looked at per claim; the rest are reached on later claims. */
const ACCOUNTS_PER_CLAIM = 64;

/**
 * Claims due submitted recipients for `node`, fairly: the accounts with work are walked in
 * order and each gets an equal share of `limit`, so one account's large message cannot hold
 * back another's. A claimed recipient is held by the node until its outcome is recorded;
 * one whose message expired meanwhile expires here instead.
 */
export async function claimSendsIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  node: string,
  now: number,
  limit: number,
  messages: MessageCache,
  sink?: TransitionSink,
  meter?: SendMeter,
): Promise<SendWork[]> {
  const accounts = await accountsWithSends(tx, ACCOUNTS_PER_CLAIM);
  if (accounts.length === 0) return [];
  const rates = meter ? await meter.ratesOf(tx, accounts, now) : new Map<number, number>();
  const share = Math.max(1, Math.ceil(limit / accounts.length));
  const lock = dialect.rowLocks ? ' for update skip locked' : '';
  const picked = dialect.pickedRows;
  const claimed: { id: number; message_id: number; account_id: number; msisdn: string; attempts: number }[] =
    [];
  for (const accountId of accounts) {
    let take = Math.min(share, limit - claimed.length);
    if (take <= 0) break;
    const rate = rates.get(accountId);
    const budget = rate === undefined ? null : await openBudgetIn(tx, accountId, rate, now);
    if (budget) {
      take = Math.min(take, Math.floor(budget.available));
      if (take <= 0) {
        meter!.throttle(accountId, now + Math.ceil(((1 - budget.available) * 1000) / budget.rate));
        continue;
      }
    }
    // The subquery's text names status = 'submitted' so SQLite uses the partial index.
    const { rows } = await runShaped<{ id: number; message_id: number; msisdn: string; attempts: number }>(
      tx,
      `claim-sends|${lock}`,
      (p) =>
        `update "recipients" set "locked_by" = ${p.one()} where ${picked.open}(` +
        `select ${picked.column} from "recipients" where status = 'submitted' and "locked_by" is null ` +
        `and "account_id" = ${p.one()} and "due_at" <= ${p.one()} order by "due_at" limit ${p.one()}${lock})${picked.close}` +
        ' returning "id", "message_id", "msisdn", "attempts"',
      [node, accountId, now, take],
    );
    for (const r of rows) {
      claimed.push({
        id: r.id,
        message_id: r.message_id,
        account_id: accountId,
        msisdn: r.msisdn,
        attempts: r.attempts,
      });
    }
    if (budget) {
      const empty = await spendBudgetIn(tx, budget, rows.length, now);
      if (empty !== null) meter!.throttle(accountId, empty);
    }
  }
  if (claimed.length === 0) return [];

  await loadMessages(tx, [...new Set(claimed.map((c) => c.message_id))], messages);
  const work: SendWork[] = [];
  const expired: Change[] = [];
  for (const c of claimed) {
    const message = messages.get(c.message_id)!;
    if (message.expiresAt !== null && message.expiresAt <= now) {
      expired.push({ recipientId: c.id, to: 'expired' });
      continue;
    }
    work.push({
      recipientId: c.id,
      messageId: c.message_id,
      accountId: c.account_id,
      to: c.msisdn,
      from: message.sender,
      body: message.body,
      attempts: c.attempts,
      claimedAt: now,
    });
  }
  if (expired.length > 0) await applyChanges(tx, dialect, expired, now, sink, { holder: node });
  return work;
}

/** Fills the cache with the messages it lacks, in one statement per 512. */
async function loadMessages(tx: Kysely<Database>, ids: readonly number[], cache: MessageCache) {
  const missing = ids.filter((id) => cache.get(id) === undefined);
  for (let i = 0; i < missing.length; i += 512) {
    const { rows } = await runShaped<{ id: number; sender: string; body: string; expires_at: number | null }>(
      tx,
      'send-messages',
      (p) => `select "id", "sender", "body", "expires_at" from "messages" where "id" ${p.in()}`,
      [list(missing.slice(i, i + 512))],
    );
    for (const r of rows) cache.set(r.id, { sender: r.sender, body: r.body, expiresAt: r.expires_at });
  }
}

/**
 * Table a(id): the accounts with submitted recipients nobody holds, walked in index order
 * without reading their rows (recipients_work on SQLite, one seek each; recipients_queued on
 * PostgreSQL, a seek and a read of the held rows at the head of the account's queue).
 */
const UNHELD_ACCOUNTS = `with recursive a(id) as (
      select min(account_id) from recipients where status = 'submitted' and locked_by is null
      union all
      select (select min(account_id) from recipients
              where status = 'submitted' and locked_by is null and account_id > a.id)
      from a where a.id is not null
    )`;

/** Accounts with submitted recipients nobody holds. Due or not is left to each account's claim. */
async function accountsWithSends(tx: Kysely<Database>, limit: number): Promise<number[]> {
  const { rows } = await runShaped<{ id: number | string | null }>(
    tx,
    'accounts-with-sends',
    (p) => `${UNHELD_ACCOUNTS}
    select id from a where id is not null limit ${p.one()}`,
    [limit],
  );
  return rows.map((r) => Number(r.id));
}

/** Whether a claim would find anything, asked without a (write) transaction. */
export async function anySendDue(db: Kysely<Database>, now: number): Promise<boolean> {
  const { rows } = await runShaped<{ id: number }>(
    db,
    'any-send-due',
    (p) =>
      `select "id" from "recipients" where status = 'submitted' and "locked_by" is null and "due_at" <= ${p.one()} limit 1`,
    [now],
  );
  return rows.length > 0;
}

/**
 * When the next unheld submitted recipient becomes due; null when there is none. The recipients
 * of `throttled` accounts (their send_rate's bucket is empty) are due when the bucket has a
 * token again, whatever their due_at says.
 */
export async function nextSendDue(
  db: Kysely<Database>,
  throttled: ReadonlyMap<number, number> = new Map(),
): Promise<number | null> {
  const excluded = [...throttled.keys()];
  // One seek per account (UNHELD_ACCOUNTS, then the first due_at in each account's part of
  // recipients_work, or recipients_queued on PostgreSQL): a plain min(due_at) over unheld
  // recipients read the whole backlog, 15 ms at 250,000 queued, and it runs every time the
  // engine goes idle.
  const { rows } = await runShaped<{ next: number | string | null }>(
    db,
    excluded.length === 0 ? 'next-send-due' : 'next-send-due-except',
    (p) => `${UNHELD_ACCOUNTS}
    select min((select min(due_at) from recipients
                where status = 'submitted' and locked_by is null and account_id = a.id)) as "next"
    from a where a.id is not null${excluded.length === 0 ? '' : ` and not (a.id ${p.in()})`}`,
    excluded.length === 0 ? [] : [list(excluded)],
  );
  const next = rows[0]?.next;
  const times = [...throttled.values()];
  if (next !== null && next !== undefined) times.push(Number(next));
  return times.length === 0 ? null : Math.min(...times);
}

export interface RecordedSubmits {
  readonly changed: Changed[];
  /** Results for recipients this node no longer held (taken over, or ended meanwhile): dropped. */
  readonly stale: number;
}

/**
 * Records carrier outcomes: accepted → sent with one part row per carrier id (and any
 * receipts that overtook it), rejected → rejected, temporary failures → due again after the
 * retry policy's delay, or aborted when it gives up. Every attempt gets its row in the log.
 * A recipient moves only while `node` holds it (style §5).
 */
export async function recordSubmitsIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  node: string,
  connector: string,
  results: readonly SubmitResult[],
  retryDelay: RetryDelay,
  now: number,
  sink?: TransitionSink,
): Promise<RecordedSubmits> {
  if (results.length === 0) return { changed: [], stale: 0 };
  const changes: Change[] = [];
  const retries: { id: number; at: number }[] = [];
  const accepted = new Map<number, readonly string[]>();
  for (const { work, outcome } of results) {
    if (outcome.kind === 'accepted') {
      changes.push({ recipientId: work.recipientId, to: 'sent' });
      accepted.set(work.recipientId, outcome.carrierIds);
    } else if (outcome.kind === 'rejected' || outcome.kind === 'aborted') {
      changes.push({ recipientId: work.recipientId, to: outcome.kind });
    } else {
      const delay = retryDelay(work.attempts + 1);
      if (delay === null) changes.push({ recipientId: work.recipientId, to: 'aborted' });
      else retries.push({ id: work.recipientId, at: now + Math.max(delay, outcome.afterMs ?? 0) });
    }
  }
  await insertRows(
    tx,
    'submit_attempts',
    ['recipient_id', 'connector', 'worker', 'started_at', 'finished_at', 'outcome', 'detail'],
    results.map(({ work, outcome, at }) => [
      work.recipientId,
      connector,
      node,
      work.claimedAt,
      at,
      outcome.kind,
      outcome.kind === 'accepted' ? null : outcome.reason.slice(0, 500),
    ]),
  );
  const changed = await applyChanges(tx, dialect, changes, now, sink, { holder: node, countAttempt: true });
  const retried = await retryLater(tx, node, retries);
  const moved = new Set(changed.map((c) => c.recipientId));
  const parts: unknown[][] = [];
  for (const [recipientId, carrierIds] of accepted) {
    if (!moved.has(recipientId)) continue;
    carrierIds.forEach((carrierId, i) =>
      parts.push([connector, carrierId, recipientId, i + 1, carrierIds.length]),
    );
  }
  await insertParts(tx, dialect, parts);
  changed.push(
    ...(await adoptOrphans(
      tx,
      dialect,
      connector,
      parts.map((p) => p[1] as string),
      now,
      sink,
    )),
  );
  return { changed, stale: results.length - moved.size - retried };
}

const PART_COLUMNS = ['connector', 'carrier_id', 'recipient_id', 'part', 'parts'];
const KEEP_FIRST_PART = ' on conflict ("connector", "carrier_id") do nothing';

/**
 * The parts the carrier accepted. A carrier id already on record (an SMSC that restarted its
 * numbering, one that answered two submits with the same id) keeps its first recipient.
 * Where ON CONFLICT is a speculative insertion per row (Dialect.speculativeOnConflict), 8.2–8.3
 * against 5.1–5.7 µs per row for 100,000 parts replayed in `psql`, the rows go in plainly inside
 * a savepoint; only a unique violation rolls back to it and inserts them again with ON CONFLICT.
 * The savepoint cost nothing measurable in the same replay.
 */
async function insertParts(
  tx: Kysely<Database>,
  dialect: Dialect,
  parts: readonly (readonly unknown[])[],
): Promise<void> {
  if (parts.length === 0) return;
  const insert = (tail?: string) => insertRows(tx, 'recipient_parts', PART_COLUMNS, parts, tail);
  if (!dialect.speculativeOnConflict) return insert(KEEP_FIRST_PART);
  await sql`savepoint recipient_parts`.execute(tx);
  try {
    await insert();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await sql`rollback to savepoint recipient_parts`.execute(tx);
    await insert(KEEP_FIRST_PART);
  }
  await sql`release savepoint recipient_parts`.execute(tx);
}

/**
 * Recipients due again, each at its own time, in one UPDATE … FROM a table of rows per 500,
 * only while `node` holds them; returns how many it held.
 */
async function retryLater(
  tx: Kysely<Database>,
  node: string,
  retries: readonly { id: number; at: number }[],
): Promise<number> {
  let held = 0;
  for (let i = 0; i < retries.length; i += 500) {
    const part = retries.slice(i, i + 500);
    const result = await runShaped(
      tx,
      'retry-sends',
      (p) => `with v (id, at) as (${p.rows(['bigint', 'bigint'])})
      update recipients set due_at = v.at, attempts = recipients.attempts + 1, locked_by = null
      from v
      where recipients.id = v.id and recipients.locked_by = ${p.one()} and recipients.status = 'submitted'`,
      [tableOf(part.map((r) => [r.id, r.at])), node],
    );
    held += Number(result.numAffectedRows ?? 0);
  }
  return held;
}
