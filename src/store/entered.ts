/**
 * How many recipients entered each status in a transaction, told once it has committed: the
 * `smsgw_recipients_total` counter (decisions §12) then never counts a change that rolled back,
 * nor one twice when a deadlocked transaction runs again. Counted where recipients are written
 * (insertion at acceptance, applyChanges for every later move), found by the transaction object
 * as the webhook hold is (src/store/webhooks/enqueue.ts).
 */
import type { Kysely, Transaction } from 'kysely';
import type { Status } from '../domain/status.js';
import type { Database } from './schema.js';

export type EnteredCounts = ReadonlyMap<Status, number>;
/** Told after each commit that moved recipients. */
export type OnEntered = (counts: EnteredCounts) => void;

const tallies = new WeakMap<object, Map<Status, number>>();

/** Inside a transaction: `count` recipients entered `status`. */
export function countEntered(tx: Kysely<Database>, status: Status, count: number): void {
  if (count === 0) return;
  const tally = tallies.get(tx);
  if (tally) tally.set(status, (tally.get(status) ?? 0) + count);
}

/** A transaction whose recipient moves are told to `onEntered` once it has committed. */
export async function countedTransaction<T>(
  db: Kysely<Database>,
  onEntered: OnEntered | undefined,
  run: (tx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (!onEntered) return db.transaction().execute(run);
  const tally = new Map<Status, number>();
  const result = await db.transaction().execute((tx) => {
    tallies.set(tx, tally);
    return run(tx);
  });
  if (tally.size > 0) onEntered(tally);
  return result;
}
