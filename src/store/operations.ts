import { sql, type Kysely } from 'kysely';
import { isPending } from './webhooks/pending.js';
import type { Dialect } from './dialect.js';
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

export function operationsStore(db: Kysely<Database>, dialect: Dialect): OperationsStore {
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
      // Each count reads an index that holds live work only, never the history. A message's
      // open_recipients counts its recipients not yet final (pending, submitted or sent), and
      // messages_unfinished lists the messages that have any; submitted and sent recipients are
      // the entries of the partial indexes recipients_work and recipients_sent (a covering
      // scan on SQLite, an index scan on PostgreSQL). Pending is what remains: one message row
      // per open message, instead of every recipient of every open message read twice (once
      // per status) as a per-message count would. One statement, so the three counts are of
      // one moment.
      const counts = await sql<{
        open: number | string | null;
        submitted: number | string;
        sent: number | string;
      }>`select
          (select sum(open_recipients) from messages ${sql.raw(dialect.indexedBy('messages_unfinished'))}
            where complete_at is null) as open,
          (select count(*) from recipients where status = 'submitted') as submitted,
          (select count(*) from recipients where status = 'sent') as sent`.execute(db);
      const row = counts.rows[0];
      const submitted = Number(row?.submitted ?? 0);
      const open = Number(row?.open ?? 0);
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
        pending: Math.max(0, open - submitted - Number(row?.sent ?? 0)),
        submitted,
        webhooksDue: due,
        webhooksScheduled: Number(webhooks.total) - due,
        oldestDueAt: oldest !== null && oldest <= now ? oldest : null,
      };
    },
  };
}
