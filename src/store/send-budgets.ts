/**
 * An account's send_rate (decisions §13): recipients per second handed to carriers, held across
 * every node. Each metered account has a token bucket row in the database that the claiming
 * node reads (locking it, so two nodes never spend the same tokens) and spends in the claim's
 * own transaction. A bucket holds one second of tokens: a burst after a quiet spell never
 * exceeds the rate over any second.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { list, runShaped } from './shaped-sql.js';

/** How long a node reuses an account's send_rate before reading it again. */
export const SEND_RATE_CACHE_MS = 1000;

/**
 * Node-local knowledge about metered accounts: their rates (briefly cached, like API keys) and,
 * for those whose bucket a claim found empty, when a token is next due. The database stays the
 * authority; this only spares statements and tells the idle engine when to look again.
 */
export interface SendMeter {
  /** The send_rate of those of `accounts` that have one. */
  ratesOf(tx: Kysely<Database>, accounts: readonly number[], now: number): Promise<Map<number, number>>;
  /** A claim found the account's bucket empty: its next token is due at `at`. */
  throttle(accountId: number, at: number): void;
  /** Accounts whose bucket is empty at `now`, with when each has a token again. */
  throttled(now: number): ReadonlyMap<number, number>;
}

export function createSendMeter(): SendMeter {
  const rates = new Map<number, number | null>();
  let ratesUntil = 0;
  const empty = new Map<number, number>();
  return {
    async ratesOf(tx, accounts, now) {
      if (now >= ratesUntil) {
        rates.clear();
        ratesUntil = now + SEND_RATE_CACHE_MS;
      }
      const missing = accounts.filter((id) => !rates.has(id));
      if (missing.length > 0) {
        for (const id of missing) rates.set(id, null);
        const { rows } = await runShaped<{ id: number | string; send_rate: number }>(
          tx,
          'send-rates',
          (p) => `select "id", "send_rate" from "accounts" where "send_rate" is not null and "id" ${p.in()}`,
          [list(missing)],
        );
        for (const r of rows) rates.set(Number(r.id), r.send_rate);
      }
      const metered = new Map<number, number>();
      for (const id of accounts) {
        const rate = rates.get(id);
        if (rate !== null && rate !== undefined && rate > 0) metered.set(id, rate);
      }
      return metered;
    },
    throttle(accountId, at) {
      empty.set(accountId, at);
    },
    throttled(now) {
      for (const [id, at] of empty) if (at <= now) empty.delete(id);
      return empty;
    },
  };
}

/** An account's bucket as a claim found it, locked until the claim's transaction ends. */
export interface Budget {
  readonly accountId: number;
  readonly rate: number;
  /** Tokens available now: recipients the claim may take. */
  readonly available: number;
}

/**
 * Opens the account's bucket for this transaction: creates it full the first time, and locks
 * it (PostgreSQL's row lock through the upsert; SQLite's single writer) so that nodes claiming
 * for the same account at once take turns.
 */
export async function openBudgetIn(
  tx: Kysely<Database>,
  accountId: number,
  rate: number,
  now: number,
): Promise<Budget> {
  const { rows } = await runShaped<{ tokens: number | string; refilled_at: number | string }>(
    tx,
    'open-send-budget',
    (p) =>
      `insert into "send_budgets" ("account_id", "tokens", "refilled_at") values (${p.one()}, ${p.one()}, ${p.one()}) ` +
      'on conflict ("account_id") do update set "account_id" = excluded."account_id" ' +
      'returning "tokens", "refilled_at"',
    [accountId, rate, now],
  );
  const row = rows[0]!;
  // Another node's clock may be a little ahead: time never runs backwards for a bucket.
  const elapsed = Math.max(0, now - Number(row.refilled_at));
  return { accountId, rate, available: Math.min(rate, Number(row.tokens) + (elapsed * rate) / 1000) };
}

/** Spends `count` of the bucket's tokens; returns when the next token is due if it is empty. */
export async function spendBudgetIn(
  tx: Kysely<Database>,
  budget: Budget,
  count: number,
  now: number,
): Promise<number | null> {
  const left = budget.available - count;
  await runShaped(
    tx,
    'spend-send-budget',
    (p) =>
      `update "send_budgets" set "tokens" = ${p.one()}, "refilled_at" = ${p.one()} where "account_id" = ${p.one()}`,
    [left, now, budget.accountId],
  );
  return left >= 1 ? null : now + Math.ceil(((1 - left) * 1000) / budget.rate);
}
