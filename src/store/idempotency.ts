import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** How long a key is kept (decisions §14); an older key counts as never used. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a request holds a key it claimed. A node that dies mid-request never completes its
 * claim, and since completion and message commit together, no message exists: after this long
 * a retry may take the key over and send. A live request that has not committed by then finds
 * its claim gone at commit and creates nothing.
 */
export const IDEMPOTENCY_LEASE_MS = 60_000;

export type IdempotencyClaim =
  /** This request holds the key: it sends, then completes or releases the claim. */
  | { readonly kind: 'claimed'; readonly token: string }
  /** The first request succeeded: its answer, to send again as it was. */
  | { readonly kind: 'replay'; readonly status: number; readonly body: string }
  /** The key was used with a different body. */
  | { readonly kind: 'mismatch' }
  /** Another request with this key is still running. */
  | { readonly kind: 'in_progress' };

/** What a claimed key's completion needs, passed with the message into its transaction. */
export interface IdempotentCompletion {
  readonly key: string;
  readonly token: string;
  /** The answer replays send, given the new message's id. */
  answer(messageId: number): { readonly status: number; readonly body: string };
}

export interface IdempotencyStore {
  claim(accountId: number, key: string, fingerprint: string, now: number): Promise<IdempotencyClaim>;
  /** Gives a claim back (the request was refused or failed), so a corrected retry may use the key. */
  release(accountId: number, key: string, token: string): Promise<void>;
  /** Deletes up to `limit` keys created before `before`; returns how many went. */
  deleteExpired(before: number, limit: number): Promise<number>;
}

/** The request's claim was taken over (its lease ran out) before its message was stored. */
export class IdempotencyClaimLostError extends Error {
  constructor() {
    super('the idempotency key was taken over by another request before this one completed');
    this.name = 'IdempotencyClaimLostError';
  }
}

/** A claim contended by several requests settles within a few rounds; more means a bug. */
const MAX_ROUNDS = 5;

export function idempotencyStore(db: Kysely<Database>): IdempotencyStore {
  return {
    async claim(accountId, key, fingerprint, now) {
      const token = randomUUID();
      const lease = now + IDEMPOTENCY_LEASE_MS;
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const inserted = await db
          .insertInto('idempotency_keys')
          .values({
            account_id: accountId,
            key,
            fingerprint,
            state: 'running',
            owner: token,
            locked_until: lease,
            created_at: now,
          })
          .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
          .returning('key')
          .executeTakeFirst();
        if (inserted) return { kind: 'claimed', token };

        const row = await db
          .selectFrom('idempotency_keys')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('key', '=', key)
          .executeTakeFirst();
        if (!row) continue; // deleted since the insert: try again
        // Each takeover below is guarded by what was read, so of two requests only one wins.
        if (row.created_at <= now - IDEMPOTENCY_TTL_MS) {
          const taken = await db
            .updateTable('idempotency_keys')
            .set({
              fingerprint,
              state: 'running',
              owner: token,
              locked_until: lease,
              message_id: null,
              response_status: null,
              response_body: null,
              created_at: now,
            })
            .where('account_id', '=', accountId)
            .where('key', '=', key)
            .where('created_at', '=', row.created_at)
            .executeTakeFirst();
          if (Number(taken.numUpdatedRows) > 0) return { kind: 'claimed', token };
          continue;
        }
        if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (row.state === 'done') {
          return { kind: 'replay', status: row.response_status ?? 200, body: row.response_body ?? '' };
        }
        if ((row.locked_until ?? 0) > now) return { kind: 'in_progress' };
        const taken = await db
          .updateTable('idempotency_keys')
          .set({ owner: token, locked_until: lease })
          .where('account_id', '=', accountId)
          .where('key', '=', key)
          .where('state', '=', 'running')
          .where('owner', '=', row.owner)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) > 0) return { kind: 'claimed', token };
      }
      return { kind: 'in_progress' };
    },

    async release(accountId, key, token) {
      await db
        .deleteFrom('idempotency_keys')
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .where('owner', '=', token)
        .where('state', '=', 'running')
        .execute();
    },

    async deleteExpired(before, limit) {
      // Oldest first, a bounded batch: one short statement however many keys have expired.
      const result = await sql`
        delete from idempotency_keys where (account_id, key) in (
          select account_id, key from idempotency_keys
          where created_at < ${before} order by created_at limit ${limit})`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

/** Inside the message's transaction: the claim becomes `done` with its answer, or the commit fails. */
export async function completeIdempotencyIn(
  tx: Kysely<Database>,
  accountId: number,
  completion: IdempotentCompletion,
  messageId: number,
): Promise<void> {
  const answer = completion.answer(messageId);
  const done = await tx
    .updateTable('idempotency_keys')
    .set({
      state: 'done',
      owner: null,
      locked_until: null,
      message_id: messageId,
      response_status: answer.status,
      response_body: answer.body,
    })
    .where('account_id', '=', accountId)
    .where('key', '=', completion.key)
    .where('owner', '=', completion.token)
    .where('state', '=', 'running')
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) === 0) throw new IdempotencyClaimLostError();
}
