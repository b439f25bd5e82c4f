/**
 * The reads behind GET /admin/v1/stats, each an index seek or a range bounded by live work or
 * by what happened since the previous read, never by the size of the history: the dashboard
 * polls them every second or two against stores of millions of recipients.
 */
import { sql, type Kysely } from 'kysely';
import { chunk, IN_CHUNK } from './chunks.js';
import type { Database } from './schema.js';

export interface SubmitOutcomeRow {
  readonly id: number;
  /** null while the carrier call is in flight. */
  readonly outcome: string | null;
}

export interface QueueDepth {
  /** Recipients not yet final, across open messages. */
  readonly open: number;
  /** Recipients queued for the carrier. */
  readonly submitted: number;
  /** Recipients the carrier accepted, waiting for their receipt. */
  readonly awaitingReceipt: number;
}

export interface StatsStore {
  /** The highest recipient id: recipients ever accepted (PostgreSQL's sequence may skip a few). */
  acceptedMark(): Promise<number>;
  /** The highest webhook attempt id: attempts ever made. */
  webhookAttemptMark(): Promise<number>;
  /** The highest submit attempt id, where counting starts. */
  submitAttemptMark(): Promise<number>;
  /** Submit attempts after `afterId` (at most `limit`, by id), and those of `ids` again. */
  submitOutcomes(afterId: number, ids: readonly number[], limit: number): Promise<SubmitOutcomeRow[]>;
  /** Recipients by status, of the messages that completed in (from, to]. */
  completedStatuses(from: number, to: number): Promise<Map<string, number>>;
  queueDepth(): Promise<QueueDepth>;
  /** Pending webhook deliveries already due, and when the oldest of them fell due. */
  webhooksDue(now: number): Promise<{ due: number; oldestDueAt: number | null }>;
}

export function statsStore(db: Kysely<Database>): StatsStore {
  const accountIds = async () =>
    (await db.selectFrom('accounts').select('id').orderBy('id').execute()).map((a) => a.id);

  return {
    async acceptedMark() {
      const row = await db
        .selectFrom('recipients')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    async webhookAttemptMark() {
      const row = await db
        .selectFrom('webhook_attempts')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    async submitAttemptMark() {
      const row = await db
        .selectFrom('submit_attempts')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    async submitOutcomes(afterId, ids, limit) {
      const rows: SubmitOutcomeRow[] = await db
        .selectFrom('submit_attempts')
        .select(['id', 'outcome'])
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
      for (const part of chunk(ids, IN_CHUNK)) {
        rows.push(
          ...(await db
            .selectFrom('submit_attempts')
            .select(['id', 'outcome'])
            .where('id', 'in', part)
            .execute()),
        );
      }
      return rows;
    },

    async completedStatuses(from, to) {
      const counts = new Map<string, number>();
      // messages is indexed by (account_id, complete_at), not by complete_at alone: one range
      // per account, which the IN list gives both planners.
      for (const accounts of chunk(await accountIds(), IN_CHUNK)) {
        const rows = await db
          .selectFrom('messages as m')
          .innerJoin('recipients as r', 'r.message_id', 'm.id')
          .select(['r.status', (eb) => eb.fn.countAll<number>().as('n')])
          .where('m.account_id', 'in', accounts)
          .where('m.complete_at', '>', from)
          .where('m.complete_at', '<=', to)
          .groupBy('r.status')
          .execute();
        for (const r of rows) counts.set(r.status, (counts.get(r.status) ?? 0) + Number(r.n));
      }
      return counts;
    },

    async queueDepth() {
      let open = 0;
      for (const accounts of chunk(await accountIds(), IN_CHUNK)) {
        const row = await db
          .selectFrom('messages')
          .select((eb) => eb.fn.sum<number>('open_recipients').as('n'))
          .where('account_id', 'in', accounts)
          .where('complete_at', 'is', null)
          .executeTakeFirst();
        open += Number(row?.n ?? 0);
      }
      // A submitted recipient is its own send work since migration 7 (no outbox row): the
      // literal lets SQLite count the entries of its partial index recipients_work.
      const submitted = await db
        .selectFrom('recipients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', sql.lit('submitted'))
        .executeTakeFirstOrThrow();
      // The literal lets SQLite use the partial index of recipients in 'sent'.
      const waiting = await db
        .selectFrom('recipients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', sql.lit('sent'))
        .executeTakeFirstOrThrow();
      return { open, submitted: Number(submitted.n), awaitingReceipt: Number(waiting.n) };
    },

    async webhooksDue(now) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('next_attempt_at').as('oldest')])
        .where('state', '=', sql.lit('pending'))
        .where('next_attempt_at', '<=', now)
        .executeTakeFirstOrThrow();
      return { due: Number(row.n), oldestDueAt: row.oldest === null ? null : Number(row.oldest) };
    },
  };
}
