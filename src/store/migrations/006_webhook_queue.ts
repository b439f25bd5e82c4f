import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>): Promise<void> {
  // A delivery row is its own work item from here on: the outbox job each one had cost an
  // insert, a lookup by subject, a lock and a delete per webhook, about 15% of the webhook
  // bench's SQL time. The lease is the row's own: the worker holding it, until next_attempt_at.
  await db.schema.alterTable('webhook_deliveries').addColumn('locked_by', 'text').execute();
  // Failed attempts since the delivery was queued or last replayed: where its retry schedule
  // stands (the job's attempts before). `attempts` keeps counting every attempt ever made.
  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('retry_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Pending work keeps its place in the schedule. A job held by a worker of the previous
  // version is due at once: that worker stops with this upgrade, and its attempt may be sent
  // again, which at-least-once allows.
  await sql`
    update webhook_deliveries set
      retry_attempts = o.attempts,
      next_attempt_at = case when o.run_at < webhook_deliveries.next_attempt_at
        then o.run_at else webhook_deliveries.next_attempt_at end
    from outbox o
    where o.kind = 'webhook' and o.subject_id = webhook_deliveries.id
      and webhook_deliveries.state = 'pending'`.execute(db);
  await db.deleteFrom('outbox').where('kind', '=', 'webhook').execute();

  // The queue's indexes hold pending rows only: a finished delivery leaves them instead of
  // moving to its new state's place in each, and they stay the size of the backlog, not of
  // the history. Queries name 'pending' in their text, as SQLite needs to use them.
  await db.schema.dropIndex('webhook_deliveries_origin_due').execute();
  await db.schema.dropIndex('webhook_deliveries_due').execute();
  // Claiming walks the origins with pending work and takes each one's due rows in order.
  await sql`create index webhook_deliveries_pending_origin on webhook_deliveries (origin, next_attempt_at)
    where state = 'pending'`.execute(db);
  // When the delivery runner next has something to do.
  await sql`create index webhook_deliveries_pending on webhook_deliveries (next_attempt_at)
    where state = 'pending'`.execute(db);
  // The admin listing of what was given up on (to replay it) stays an index read however long
  // the history, as the state indexes dropped here made it. Rare rows, so a cheap index.
  await sql`create index webhook_deliveries_failed on webhook_deliveries (id)
    where state = 'failed'`.execute(db);
}

export const webhookQueue: Migration = { version: 6, name: 'webhook_queue', up };
