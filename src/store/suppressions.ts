/**
 * Each account's suppression list (decisions §17): numbers it never sends to. A POST asks about
 * all its recipients in one statement per 512 (an index range scan of the primary key each),
 * and the keyword path and imports write through the same table, so every node sees a STOP
 * as soon as it commits.
 */
import type { Kysely } from 'kysely';
import { coalescedLookup } from './coalesced-lookup.js';
import type { Dialect } from './dialect.js';
import { countedTransaction, type OnEntered } from './entered.js';
import { insertRows } from './insert-rows.js';
import { list, runShaped, usesNumberedParameters, type Placeholders } from './shaped-sql.js';
import type { Database } from './schema.js';
import { applyChanges, type TransitionSink } from './transitions.js';

/** The finer code of `aborted` for a suppressed recipient (decisions §7, §17). */
export const SUPPRESSED_CODE = 421;

/** What aborting the open recipients of a newly suppressed number needs (see suppressIn). */
export interface SuppressionEffects {
  readonly dialect: Dialect;
  /** Delivery reports of the recipients it aborts. */
  readonly sink?: TransitionSink | undefined;
  readonly onEntered?: OnEntered | undefined;
}

export const SUPPRESSION_REASONS = ['manual', 'stop', 'import'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

export interface Suppression {
  readonly msisdn: string;
  readonly reason: SuppressionReason;
  readonly createdAt: number;
}

export interface SuppressionStore {
  /** Oldest first (then by number), one more than `limit` read so the caller knows whether more exist. */
  list(accountId: number, limit: number, offset: number): Promise<{ rows: Suppression[]; more: boolean }>;
  /** Adds the number, or returns the entry it already has (its first reason and time stay). */
  add(accountId: number, msisdn: string, reason: SuppressionReason, now: number): Promise<Suppression>;
  /** The entry removed; null when the number was not on the list. */
  remove(accountId: number, msisdn: string): Promise<Suppression | null>;
  /** Which of `msisdns` (normalised) the account suppresses. */
  suppressedAmong(accountId: number, msisdns: readonly string[]): Promise<Set<string>>;
  /** Adds many numbers in one transaction; those already listed are left as they are. */
  addMany(
    accountId: number,
    msisdns: readonly string[],
    reason: SuppressionReason,
    now: number,
  ): Promise<void>;
}

/**
 * Values per `IN` list on SQLite (its statements take at most a few thousand parameters well);
 * PostgreSQL takes the whole list as one array parameter, so one statement per POST.
 */
const SQLITE_LOOKUP_CHUNK = 512;
const lookupChunk = (db: Kysely<Database>) =>
  usesNumberedParameters(db) ? Number.MAX_SAFE_INTEGER : SQLITE_LOOKUP_CHUNK;

export function suppressionStore(db: Kysely<Database>, effects: SuppressionEffects): SuppressionStore {
  const write = <T>(run: (tx: Kysely<Database>) => Promise<T>) =>
    countedTransaction(db, effects.onEntered, run);
  const get = async (accountId: number, msisdn: string) => {
    const row = await db
      .selectFrom('suppressions')
      .select(['msisdn', 'reason', 'created_at'])
      .where('account_id', '=', accountId)
      .where('msisdn', '=', msisdn)
      .executeTakeFirst();
    return row ? toSuppression(row) : null;
  };
  // The POSTs of one turn of the event loop ask together (./coalesced-lookup.ts): on PostgreSQL
  // each lookup is a round trip, and on SQLite each statement outside a transaction opens a read
  // snapshot of its own, 13–27 µs per POST for a one-number lookup (e2e harness, max-c64).
  const suppressedAmong = coalescedLookup((accountId: number, msisdns: readonly string[]) =>
    suppressedAmongIn(db, accountId, msisdns),
  );
  return {
    async list(accountId, limit, offset) {
      const rows = await db
        .selectFrom('suppressions')
        .select(['msisdn', 'reason', 'created_at'])
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('msisdn')
        .limit(limit + 1)
        .offset(offset)
        .execute();
      return { rows: rows.slice(0, limit).map(toSuppression), more: rows.length > limit };
    },

    async add(accountId, msisdn, reason, now) {
      await write((tx) => suppressIn(tx, effects, accountId, [msisdn], reason, now));
      return (await get(accountId, msisdn))!;
    },

    async remove(accountId, msisdn) {
      const row = await db
        .deleteFrom('suppressions')
        .where('account_id', '=', accountId)
        .where('msisdn', '=', msisdn)
        .returning(['msisdn', 'reason', 'created_at'])
        .executeTakeFirst();
      return row ? toSuppression(row) : null;
    },

    suppressedAmong,

    addMany: (accountId, msisdns, reason, now) =>
      write((tx) => suppressIn(tx, effects, accountId, msisdns, reason, now)),
  };
}

export async function suppressedAmongIn(
  db: Kysely<Database>,
  accountId: number,
  msisdns: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  const size = lookupChunk(db);
  for (let i = 0; i < msisdns.length; i += size) {
    const { rows } = await runShaped<{ msisdn: string }>(
      db,
      'suppressed-among',
      (p) => `select "msisdn" from "suppressions" where "account_id" = ${p.one()} and "msisdn" ${p.in()}`,
      [accountId, list(msisdns.slice(i, i + size))],
    );
    for (const r of rows) found.add(r.msisdn);
  }
  return found;
}

/**
 * Lists the numbers and aborts (421) their recipients still waiting to be sent (`pending`, or
 * `submitted` and not yet accepted by a carrier), in the caller's transaction: a number that
 * opts out is not sent to again, even by a message accepted before it did (scheduled, waiting
 * for its window, or queued behind others). A submit already in flight completes as it does
 * for a cancel: its outcome finds the recipient final and is recorded only as an attempt.
 */
export async function suppressIn(
  tx: Kysely<Database>,
  effects: SuppressionEffects,
  accountId: number,
  msisdns: readonly string[],
  reason: SuppressionReason,
  now: number,
): Promise<void> {
  if (msisdns.length === 0) return;
  await addSuppressionsIn(tx, accountId, msisdns, reason, now);
  const open: number[] = [];
  const size = lookupChunk(tx);
  // Through recipients_msisdn (recipient_numbers' key on PostgreSQL): a number has few
  // recipients beside the millions of a table.
  const ofNumbers = (p: Placeholders) =>
    effects.dialect.numbersApart
      ? `"id" in (select "recipient_id" from "recipient_numbers" where "msisdn" ${p.in()})`
      : `"msisdn" ${p.in()}`;
  for (let i = 0; i < msisdns.length; i += size) {
    const { rows } = await runShaped<{ id: number }>(
      tx,
      'suppressed-open-recipients',
      (p) =>
        `select "id" from "recipients" where ${ofNumbers(p)} and "account_id" = ${p.one()} ` +
        `and "status" in ('pending', 'submitted')`,
      [list(msisdns.slice(i, i + size)), accountId],
    );
    for (const r of rows) open.push(r.id);
  }
  await applyChanges(
    tx,
    effects.dialect,
    open.map((recipientId) => ({ recipientId, to: 'aborted', code: SUPPRESSED_CODE })),
    now,
    effects.sink,
  );
}

/** Inside the caller's transaction; numbers already listed keep their entry. */
export async function addSuppressionsIn(
  tx: Kysely<Database>,
  accountId: number,
  msisdns: readonly string[],
  reason: SuppressionReason,
  now: number,
): Promise<void> {
  if (msisdns.length === 0) return;
  await insertRows(
    tx,
    'suppressions',
    ['account_id', 'msisdn', 'reason', 'created_at'],
    msisdns.map((m) => [accountId, m, reason, now]),
    ' on conflict ("account_id", "msisdn") do nothing',
  );
}

export async function removeSuppressionsIn(
  tx: Kysely<Database>,
  accountId: number,
  msisdns: readonly string[],
): Promise<number> {
  if (msisdns.length === 0) return 0;
  const result = await tx
    .deleteFrom('suppressions')
    .where('account_id', '=', accountId)
    .where('msisdn', 'in', msisdns)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

function toSuppression(row: { msisdn: string; reason: string; created_at: number }): Suppression {
  return { msisdn: row.msisdn, reason: row.reason as SuppressionReason, createdAt: Number(row.created_at) };
}
