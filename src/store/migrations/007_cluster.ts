import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const big = d.bigInteger;
  const now = Date.now();

  // Nodes that share the database (decisions §23). A node holds work under its id while its
  // heartbeat is fresh; when it stops beating for SMSGW_LEASE_TTL another node takes the work.
  await db.schema
    .createTable('nodes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', big, (c) => c.notNull())
    .addColumn('heartbeat_at', big, (c) => c.notNull())
    .execute();

  // A submitted recipient is its own send work: no job row to insert, lock and delete per
  // recipient (three writes of a four-index table on the hot path). `locked_by` is the node
  // whose submit is in flight; `due_at` is when it may be claimed (later after a retry).
  await db.schema.alterTable('recipients').addColumn('account_id', big).execute();
  await db.schema.alterTable('recipients').addColumn('due_at', big).execute();
  await db.schema.alterTable('recipients').addColumn('locked_by', 'text').execute();
  await sql`update recipients set account_id = (select m.account_id from messages m where m.id = recipients.message_id)`.execute(
    db,
  );
  await sql`update recipients set due_at = coalesce(
      (select min(o.run_at) from outbox o where o.kind = 'send' and o.subject_id = recipients.id),
      submitted_at, status_at)
    where status = 'submitted'`.execute(db);
  await sql`delete from outbox where kind = 'send'`.execute(db);
  // Submits the previous version had in flight when it stopped: their outcome is unknown.
  await sql`update submit_attempts set outcome = 'interrupted', finished_at = ${now},
      detail = 'the worker stopped during the carrier call'
    where outcome is null`.execute(db);
  // One index serves claiming (locked_by null, account by account, oldest due first) and
  // taking over a dead node's work (locked_by = it). Only submitted recipients are in it.
  await sql`create index recipients_work on recipients (locked_by, account_id, due_at)
    where status = 'submitted'`.execute(db);

  // Message jobs (release, expire) run inside the transaction that claims them: no lease.
  await sql`update outbox set locked_by = null, locked_until = null`.execute(db);

  // Webhook deliveries: the same shape. A delivery written by a node's own status change is
  // held by that node from birth and never enters the claimable part of the index.
  await sql`update webhook_deliveries set locked_by = null, next_attempt_at = ${now}
    where state = 'pending' and locked_by is not null`.execute(db);
  await db.schema.dropIndex('webhook_deliveries_pending_origin').execute();
  await db.schema.dropIndex('webhook_deliveries_pending').execute();
  await sql`create index webhook_deliveries_work on webhook_deliveries (locked_by, origin, next_attempt_at)
    where state = 'pending'`.execute(db);

  // Binds to an SMSC across all nodes (decisions §23): a slot per allowed bind, held by a node.
  await db.schema
    .alterTable('smpp_connectors')
    .addColumn('max_binds', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .createTable('connector_binds')
    .addColumn('connector', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('since', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('connector_binds_pk', ['connector', 'slot'])
    .execute();
}

export const cluster: Migration = { version: 7, name: 'cluster', up };
