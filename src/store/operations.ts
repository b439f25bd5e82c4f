import { sql, type Kysely } from 'kysely';
import { isPending } from './webhooks/pending.js';
import type { Database } from './schema.js';

/** Work waiting in the whole store (every node's), for the gauges of decisions §12. */
export interface QueueDepth {
  readonly pending: number;
  readonly submitted: number;
  /** Webhook deliveries due now, and those waiting for a later attempt (or in flight). */
  readonly webhooksDue: number;
  readonly webhooksScheduled: number;
  /** When the oldest due delivery became due; null when none is due. */
  readonly oldestDueAt: number | null;
}

/** What the operations endpoints read: readiness and the queue gauges. */
export interface OperationsStore {
  /** Resolves once the database has answered a trivial query. */
  ping(): Promise<void>;
  /** The versions among `expected` that are not recorded as applied. */
  missingMigrations(expected: readonly number[]): Promise<number[]>;
  queueDepth(now: number): Promise<QueueDepth>;
}

export function operationsStore(db: Kysely<Database>): OperationsStore {
  return {
    async ping() {
      await sql`select 1`.execute(db);
    },

    async missingMigrations(expected) {
      const rows = await db.selectFrom('smsgw_migrations').select('version').execute();
      const applied = new Set(rows.map((r) => Number(r.version)));
      return expected.filter((v) => !applied.has(v));
    },

    async queueDepth(now) {
      // Pending and submitted recipients belong to messages not yet complete, which each
      // account's messages_open index lists: read through it, account by account, the query
      // touches the unfinished work only, however long the history.
      const recipients = await sql<{ status: string; n: number | string }>`
        select r.status, count(*) as n
        from accounts a
        join messages m on m.account_id = a.id and m.complete_at is null
        join recipients r on r.message_id = m.id
        where r.status in ('pending', 'submitted')
        group by r.status`.execute(db);
      const count = (status: string) => Number(recipients.rows.find((r) => r.status === status)?.n ?? 0);
      const webhooks = await db
        .selectFrom('webhook_deliveries')
        .select([
          sql<number | string | null>`sum(case when next_attempt_at <= ${now} then 1 else 0 end)`.as('due'),
          sql<number | string>`count(*)`.as('total'),
          sql<number | string | null>`min(next_attempt_at)`.as('oldest'),
        ])
        .where(isPending)
        .executeTakeFirstOrThrow();
      const due = Number(webhooks.due ?? 0);
      const oldest = webhooks.oldest === null ? null : Number(webhooks.oldest);
      return {
        pending: count('pending'),
        submitted: count('submitted'),
        webhooksDue: due,
        webhooksScheduled: Number(webhooks.total) - due,
        oldestDueAt: oldest !== null && oldest <= now ? oldest : null,
      };
    },
  };
}
