import { sql, type Kysely } from 'kysely';
import { chunk, IN_CHUNK } from './chunks.js';
import { list, rows as tableOf, runShaped, type Placeholders } from './shaped-sql.js';
import { STATUS_CODES, isFinal, sourcesOf, type Status } from '../domain/status.js';
import type { Dialect } from './dialect.js';
import { countEntered } from './entered.js';
import type { Database } from './schema.js';

export interface Change {
  readonly recipientId: number;
  readonly to: Status;
  /** A finer code for the same status (decisions §7); defaults to the status's own code. */
  readonly code?: number;
}

export interface Changed {
  readonly recipientId: number;
  readonly messageId: number;
  readonly msisdn: string;
  readonly status: Status;
  readonly code: number;
  readonly at: number;
  /** Whether the recipient was ever accepted by a carrier: a final report then carries its price. */
  readonly reachedCarrier: boolean;
}

/** Called inside the same transaction with every change that happened (webhooks hook in here). */
export type TransitionSink = (tx: Kysely<Database>, changed: readonly Changed[]) => Promise<void>;

export interface ChangeOptions {
  /**
   * Only recipients this node holds move (a submit's result): a node whose work was taken
   * over while its result was on the way changes nothing (style §5).
   */
  readonly holder?: string;
  /** The change is a submit's outcome: it counts as one more attempt of the recipient. */
  readonly countAttempt?: boolean;
}

/**
 * Applies recipient status changes in bulk, each guarded by the transition table: a row only
 * moves if its current status may lead to the target, so a late or duplicated event never
 * rewrites a final status. In the same transaction it keeps the message's counters (open
 * recipients, complete_at, balance_used, reserved credit) and refunds credit for recipients
 * that end without reaching the carrier (decisions §7).
 */
export async function applyChanges(
  tx: Kysely<Database>,
  dialect: Dialect,
  changes: readonly Change[],
  at: number,
  sink?: TransitionSink,
  options: ChangeOptions = {},
): Promise<Changed[]> {
  const groups = new Map<string, { to: Status; code: number; ids: number[] }>();
  for (const c of changes) {
    const code = c.code ?? STATUS_CODES[c.to];
    const key = `${c.to}:${code}`;
    const group = groups.get(key) ?? { to: c.to, code, ids: [] };
    group.ids.push(c.recipientId);
    groups.set(key, group);
  }

  const changed: Changed[] = [];
  // A transaction that settles its changes later counts into what it has gathered so far.
  const later = deferred.get(tx);
  const perMessage = later?.counts ?? new Map<number, MessageCounts>();
  for (const { to, code, ids } of groups.values()) {
    for (const part of chunk(ids, IN_CHUNK)) {
      const rows = await moveRecipients(tx, to, code, at, part, options);
      countEntered(tx, to, rows.length);
      for (const row of rows) {
        changed.push({
          recipientId: row.id,
          messageId: row.message_id,
          msisdn: row.msisdn,
          status: to,
          code,
          at,
          reachedCarrier: Number(row.reached_carrier) === 1,
        });
        const m = perMessage.get(row.message_id) ?? { finals: 0, sent: 0, unpaidFinals: 0 };
        if (to === 'sent') m.sent += 1;
        if (isFinal(to)) {
          m.finals += 1;
          if (row.reached_carrier === 0) m.unpaidFinals += 1;
        }
        perMessage.set(row.message_id, m);
      }
    }
  }
  if (changed.length === 0) return changed;

  if (later) {
    later.at = Math.max(later.at, at);
    if (sink) {
      const gathered = later.sinks.get(sink);
      if (gathered) gathered.push(...changed);
      else later.sinks.set(sink, [...changed]);
    }
    return changed;
  }
  await writeCounters(tx, dialect, perMessage, at);
  if (sink) await sink(tx, changed);
  return changed;
}

/**
 * The message counters and sink calls of a transaction's status changes, gathered and done
 * together when it settles them (settleChanges): the engine's turns (src/store/engine-store.ts,
 * src/engine/loop.ts), which settle before their last stage and at the end. On PostgreSQL a
 * message's row stays locked from its counters' update to the commit; a turn that settles
 * once its statements are done holds its messages for the end of the turn only, locks them in
 * one statement in id order (two turns at once, the main loop's and the carrier's, then wait
 * for each other briefly and never deadlock), and writes each message and reads its report
 * settings once however many changes it made.
 */
interface Deferred {
  counts: Map<number, MessageCounts>;
  at: number;
  sinks: Map<TransitionSink, Changed[]>;
}

const deferred = new WeakMap<object, Deferred>();

export function deferChanges(tx: Kysely<Database>): void {
  deferred.set(tx, { counts: new Map(), at: 0, sinks: new Map() });
}

/** Writes the counters of the changes gathered since the last settle, then runs their sinks. */
export async function settleChanges(tx: Kysely<Database>, dialect: Dialect): Promise<void> {
  const later = deferred.get(tx);
  if (!later || (later.counts.size === 0 && later.sinks.size === 0)) return;
  const { counts, at, sinks } = later;
  deferred.set(tx, { counts: new Map(), at: 0, sinks: new Map() });
  if (counts.size > 0) await writeCounters(tx, dialect, counts, at);
  for (const [sink, changed] of sinks) await sink(tx, changed);
}

async function writeCounters(
  tx: Kysely<Database>,
  dialect: Dialect,
  perMessage: ReadonlyMap<number, MessageCounts>,
  at: number,
): Promise<void> {
  // Only `sent` and final statuses move a message's counters (submitted, for one, does not).
  const messageIds = [...perMessage]
    .filter(([, m]) => m.sent > 0 || m.finals > 0)
    .map(([id]) => id)
    .sort((a, b) => a - b);
  if (messageIds.length > 0) {
    const reserving = await updateUnreservedCounters(tx, messageIds, perMessage, at, !dialect.rowLocks);
    if (reserving.length > 0) await settleReservedCredit(tx, dialect, reserving, perMessage, at);
  }
}

/**
 * The counters of messages that hold reserved credit: each one's reservation is read (locked
 * where other nodes write too), split into what the sent recipients used and what recipients
 * that ended without reaching the carrier give back, and written with the counts; the refunds
 * go back to their accounts.
 */
async function settleReservedCredit(
  tx: Kysely<Database>,
  dialect: Dialect,
  reserving: readonly number[],
  perMessage: ReadonlyMap<number, MessageCounts>,
  at: number,
): Promise<void> {
  const lock = dialect.rowLocks ? ' for no key update' : '';
  const messages: { id: number; account_id: number; num_parts: number; credits_reserved: number }[] = [];
  // In id order, chunk after chunk, so nodes locking the same messages lock them in one order.
  for (const part of chunk(reserving, IN_CHUNK)) {
    const { rows } = await runShaped<(typeof messages)[number]>(
      tx,
      `counters-of|${lock}`,
      (p) =>
        `select "id", "account_id", "num_parts", "credits_reserved" from "messages" where "id" ${p.in()} order by "id"${lock}`,
      [list(part)],
    );
    for (const r of rows) messages.push(r);
  }
  const refunds = new Map<number, number>();
  const updates: MessageCounters[] = [];
  for (const m of messages) {
    const counts = perMessage.get(m.id)!;
    let reserved = m.credits_reserved;
    const charged = Math.min(reserved, m.num_parts * counts.sent);
    reserved -= charged;
    const refund = Math.min(reserved, m.num_parts * counts.unpaidFinals);
    reserved -= refund;
    if (refund > 0) refunds.set(m.account_id, (refunds.get(m.account_id) ?? 0) + refund);
    updates.push({ id: m.id, finals: counts.finals, used: m.num_parts * counts.sent, reserved });
  }
  for (const part of chunk(updates, COUNTER_ROWS_PER_STATEMENT)) await updateCounters(tx, part, at);
  for (const [accountId, amount] of refunds) {
    await tx
      .updateTable('accounts')
      .set({ credits: sql`credits + ${amount}` })
      .where('id', '=', accountId)
      .where('credits', 'is not', null)
      .execute();
  }
}

/**
 * The counters of the messages that hold no reserved credit, in one UPDATE per 1,000 that locks
 * as it writes; returns the ids it did not move (those hold credit to split, read first).
 * A message's reservation is made when it is accepted and only shrinks after that, so one at 0
 * stays at 0: nothing to charge or refund, only the counts. That is every message of an account
 * without a credit balance, and the select-then-update of every batch (two statements, a
 * fifteenth of the smpp bench's statement time) became one.
 *
 * With `splitSent`, messages whose recipients only reached `sent` get an UPDATE of balance_used
 * alone: SQLite rewrites the entries of every index that holds a column the SET names, changed
 * or not, and complete_at is in three (3.5 against 1.7 µs per message, 50,000 rows in batches of
 * 100). In the side-by-side harness's max-c64-final the counters were the engine thread's
 * costliest statement, 7.8 µs of SQLite's time per message, half of it for `sent`. Only where
 * there are no row locks: two statements would lock a turn's messages in two runs of id order,
 * and two turns (PostgreSQL's two loops) could then deadlock; PostgreSQL compares values and
 * leaves an index alone when its key did not change.
 */
async function updateUnreservedCounters(
  tx: Kysely<Database>,
  messageIds: readonly number[],
  perMessage: ReadonlyMap<number, MessageCounts>,
  at: number,
  splitSent: boolean,
): Promise<number[]> {
  const moved = new Set<number>();
  /** One UPDATE per chunk of `ids`, each id's row of v from `row`; `more` follows the rows. */
  const update = async (
    ids: readonly number[],
    shape: string,
    text: (p: Placeholders) => string,
    row: (id: number, counts: MessageCounts) => unknown[],
    more: unknown[] = [],
  ) => {
    for (const part of chunk(ids, COUNTER_ROWS_PER_STATEMENT)) {
      const table = tableOf(part.map((id) => row(id, perMessage.get(id)!)));
      const { rows } = await runShaped<{ id: number }>(tx, shape, text, [table, ...more]);
      for (const r of rows) moved.add(Number(r.id));
    }
  };
  const sentOnly = splitSent ? messageIds.filter((id) => perMessage.get(id)!.finals === 0) : [];
  const withFinals = splitSent ? messageIds.filter((id) => perMessage.get(id)!.finals > 0) : messageIds;
  await update(
    sentOnly,
    'counters-unreserved-sent',
    (p) => `with v (id, sent) as (${p.rows(['bigint', 'bigint'])})
      update messages set balance_used = messages.balance_used + messages.num_parts * v.sent
      from v
      where messages.id = v.id and messages.credits_reserved = 0
      returning messages.id`,
    (id, m) => [id, m.sent],
  );
  await update(
    withFinals,
    'counters-unreserved',
    (p) => `with v (id, finals, sent) as (${p.rows(['bigint', 'bigint', 'bigint'])})
      update messages set ${openAndComplete(p.one())},
        balance_used = messages.balance_used + messages.num_parts * v.sent
      from v
      where messages.id = v.id and messages.credits_reserved = 0
      returning messages.id`,
    (id, m) => [id, m.finals, m.sent],
    [at],
  );
  return moved.size === messageIds.length ? [] : messageIds.filter((id) => !moved.has(id));
}

/** What one batch of status changes did to a message's recipients. */
interface MessageCounts {
  /** Recipients that reached a final status. */
  finals: number;
  /** Recipients that reached `sent`. */
  sent: number;
  /** Final recipients that never reached the carrier: their reserved credit goes back. */
  unpaidFinals: number;
}

interface MessageCounters {
  readonly id: number;
  readonly finals: number;
  readonly used: number;
  readonly reserved: number;
}

const COUNTER_ROWS_PER_STATEMENT = 1000;

/**
 * What every counter UPDATE sets from its table v (which has `finals`): the recipients still
 * open, and the completion time once none is. `at` is the placeholder of that time.
 */
const openAndComplete = (at: string) =>
  'open_recipients = messages.open_recipients - v.finals, ' +
  `complete_at = case when messages.open_recipients - v.finals <= 0 then cast(${at} as bigint) else messages.complete_at end`;

/**
 * Every message's counters in one UPDATE … FROM a table of rows instead of one UPDATE each:
 * with single-recipient messages that was one statement per recipient and status, the most
 * frequent statement of the ingest bench.
 */
async function updateCounters(tx: Kysely<Database>, counters: readonly MessageCounters[], at: number) {
  await runShaped(
    tx,
    'counters',
    (p) => `with v (id, finals, used, reserved) as (${p.rows(['bigint', 'bigint', 'bigint', 'bigint'])})
    update messages set ${openAndComplete(p.one())},
      balance_used = messages.balance_used + v.used,
      credits_reserved = v.reserved
    from v
    where messages.id = v.id`,
    [tableOf(counters.map((r) => [r.id, r.finals, r.used, r.reserved])), at],
  );
}

/**
 * Moves recipients to `to` where the transition table allows it, with the time columns that
 * status sets (sent also marks that the recipient reached the carrier). A recipient that
 * leaves `submitted` is no longer anyone's send work, so its holder is cleared.
 */
async function moveRecipients(
  tx: Kysely<Database>,
  to: Status,
  code: number,
  at: number,
  moving: readonly number[],
  { holder, countAttempt = false }: ChangeOptions,
) {
  const sources = sourcesOf(to);
  const stamp =
    to === 'submitted' ? 'submitted_at' : to === 'sent' ? 'sent_at' : isFinal(to) ? 'final_at' : null;
  const { rows } = await runShaped<{
    id: number;
    message_id: number;
    msisdn: string;
    reached_carrier: number;
  }>(
    tx,
    `move|${to}|${holder !== undefined}|${countAttempt}`,
    (p) =>
      `update "recipients" set "status" = ${p.one()}, "status_code" = ${p.one()}, "status_at" = ${p.one()}` +
      (stamp ? `, "${stamp}" = ${p.one()}` : '') +
      (to === 'sent' ? ', "reached_carrier" = 1' : '') +
      // Submitted recipients are send work from now on (src/store/sending.ts).
      (to === 'submitted' ? `, "due_at" = ${p.one()}` : '') +
      ', "locked_by" = null' +
      (countAttempt ? ', "attempts" = "attempts" + 1' : '') +
      ` where "id" ${p.in()} and "status" in (${p.list(sources.length)})` +
      (holder !== undefined ? ` and "locked_by" = ${p.one()}` : '') +
      ' returning "id", "message_id", "msisdn", "reached_carrier"',
    [
      to,
      code,
      at,
      ...(stamp ? [at] : []),
      ...(to === 'submitted' ? [at] : []),
      list(moving),
      ...sources,
      ...(holder !== undefined ? [holder] : []),
    ],
  );
  return rows;
}
