import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';

export type SmppDeliveryKind = 'receipt' | 'mo';

export interface NewSmppDelivery {
  readonly accountId: number;
  readonly kind: SmppDeliveryKind;
  /** JSON of the deliver_sm fields (src/smpp-server/deliver-pdu.ts). */
  readonly payload: string;
}

export interface HeldSmppDelivery {
  readonly id: number;
  readonly accountId: number;
  readonly kind: SmppDeliveryKind;
  readonly payload: string;
  readonly attempts: number;
}

export interface SmppDeliveryStore {
  /**
   * Holds up to `limit` due deliveries of these accounts for `node` until `leaseUntil`, oldest
   * first. A lease that ran out (its node died or lost the bind) makes a row claimable again.
   */
  claim(
    node: string,
    accountIds: readonly number[],
    now: number,
    leaseUntil: number,
    limit: number,
  ): Promise<HeldSmppDelivery[]>;
  /** The customer acknowledged them; only the holder's rows move. */
  complete(node: string, ids: readonly number[], now: number): Promise<void>;
  /** Not acknowledged: free again from `at`. */
  retry(node: string, ids: readonly number[], at: number): Promise<void>;
  /** Pending rows of an account (tests, the admin view). */
  pending(accountId: number): Promise<number>;
}

/** Queues deliveries in the caller's transaction (the status change or inbound message they report). */
export async function insertSmppDeliveriesIn(
  tx: Kysely<Database>,
  rows: readonly NewSmppDelivery[],
  now: number,
): Promise<void> {
  if (rows.length === 0) return;
  await tx
    .insertInto('smpp_deliveries')
    .values(
      rows.map((r) => ({
        account_id: r.accountId,
        kind: r.kind,
        payload: r.payload,
        state: 'pending',
        next_attempt_at: now,
        created_at: now,
      })),
    )
    .execute();
}

export function smppDeliveryStore(db: Kysely<Database>, dialect: Dialect): SmppDeliveryStore {
  // Two nodes with binds of one account claim side by side; each skips what the other holds.
  const skipLocked = dialect.rowLocks ? sql` for update skip locked` : sql``;
  const picked = dialect.pickedRows;
  return {
    async claim(node, accountIds, now, leaseUntil, limit) {
      if (accountIds.length === 0) return [];
      const ids = sql.join(accountIds.map((id) => sql`${id}`));
      const { rows } = await sql<{
        id: number;
        account_id: number;
        kind: string;
        payload: string;
        attempts: number;
      }>`update smpp_deliveries set locked_by = ${node}, locked_until = ${leaseUntil},
          attempts = attempts + 1
        where ${sql.raw(picked.open)}(
          select ${sql.raw(picked.column)} from smpp_deliveries
          where state = 'pending' and account_id in (${ids}) and next_attempt_at <= ${now}
            and (locked_by is null or locked_until < ${now})
          order by id limit ${limit}${skipLocked})${sql.raw(picked.close)}
        returning id, account_id, kind, payload, attempts`.execute(db);
      return rows
        .map((r) => ({
          id: Number(r.id),
          accountId: Number(r.account_id),
          kind: r.kind as SmppDeliveryKind,
          payload: r.payload,
          attempts: Number(r.attempts),
        }))
        .sort((a, b) => a.id - b.id);
    },
    async complete(node, ids, now) {
      if (ids.length === 0) return;
      await db
        .updateTable('smpp_deliveries')
        .set({ state: 'done', done_at: now, locked_by: null, locked_until: null })
        .where('id', 'in', [...ids])
        .where('locked_by', '=', node)
        .execute();
    },
    async retry(node, ids, at) {
      if (ids.length === 0) return;
      await db
        .updateTable('smpp_deliveries')
        .set({ next_attempt_at: at, locked_by: null, locked_until: null })
        .where('id', 'in', [...ids])
        .where('locked_by', '=', node)
        .where('state', '=', 'pending')
        .execute();
    },
    async pending(accountId) {
      const { n } = await db
        .selectFrom('smpp_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('state', '=', 'pending')
        .executeTakeFirstOrThrow();
      return Number(n);
    },
  };
}
