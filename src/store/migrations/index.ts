import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Connection, Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import { initial } from './001_initial.js';
import { engine } from './002_engine.js';
import { inbound } from './003_inbound.js';
import { webhooks } from './004_webhooks.js';
import { connectors } from './005_connectors.js';
import { webhookQueue } from './006_webhook_queue.js';
import { cluster } from './007_cluster.js';
import { sqlitePlannerHints } from './008_sqlite_planner_hints.js';
import { claimableRecipients } from './009_claimable_recipients.js';
import { hotPathWrites } from './010_hot_path_writes.js';
import { hotClaims } from './011_hot_claims.js';
import { accountLimits } from './020_account_limits.js';
import { idempotencyKeys } from './021_idempotency_keys.js';
import { listFilters } from './022_list_filters.js';
import { retention } from './023_retention.js';
import { sendBudgets } from './024_send_budgets.js';
import { consoleReads } from './030_console.js';
import { suppressions } from './040_suppressions.js';
import { deliveryWindows } from './041_delivery_windows.js';
import { smppServer } from './050_smpp_server.js';
import { recipientNumbers } from './060_recipient_numbers.js';
import { singleParts } from './061_single_parts.js';
import type { Migration } from './migration.js';

/** Every migration, in order. A released migration is never edited; add a new one. */
export const MIGRATIONS: readonly Migration[] = [
  initial,
  engine,
  inbound,
  webhooks,
  connectors,
  webhookQueue,
  cluster,
  // 8-19 are kept for the sending engine's migrations, 24-29 for operations, 30- for the console.
  sqlitePlannerHints,
  claimableRecipients,
  hotPathWrites,
  hotClaims,
  accountLimits,
  idempotencyKeys,
  listFilters,
  retention,
  sendBudgets,
  consoleReads,
  // 40-49: sending responsibly (decisions §17-§20).
  suppressions,
  deliveryWindows,
  // 50-59: the SMPP server for customers (decisions §21).
  smppServer,
  // 60-69: the sending engine again, for what must come after the migrations above (60 replaces
  // an index of 22).
  recipientNumbers,
  singleParts,
];

/** Serialises the nodes of one PostgreSQL database while they migrate; any 64-bit number works. */
const MIGRATION_LOCK = 7312001;

/**
 * Applies pending migrations, each in its own transaction with its version row, so a crash
 * leaves the store at a clean version. Several nodes may start at once on an empty database:
 * on PostgreSQL the whole run, the version table's creation included, holds a session
 * advisory lock on one connection (creating a table concurrently races in the catalog,
 * pg_type_typname_nsp_index); SQLite serialises them on its writer lock, taken before the
 * version is read.
 */
export async function migrate(conn: Connection, logger?: Logger): Promise<number[]> {
  const { db, dialect } = conn;
  if (dialect.name !== 'postgres') return migrateOn(db, dialect, logger);
  return db.connection().execute(async (session) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(session);
    try {
      return await migrateOn(session, dialect, logger);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(session);
    }
  });
}

async function migrateOn(db: Kysely<Database>, dialect: Dialect, logger?: Logger): Promise<number[]> {
  await db.schema
    .createTable('smsgw_migrations')
    .ifNotExists()
    .addColumn('version', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('applied_at', dialect.bigInteger, (c) => c.notNull())
    .execute();

  // Every start of every node and every CLI command comes here; an up-to-date store answers one
  // query instead of a locked transaction per migration (a round trip each on PostgreSQL).
  const recorded = new Set(
    (await db.selectFrom('smsgw_migrations').select('version').execute()).map((r) => Number(r.version)),
  );
  if (MIGRATIONS.every((m) => recorded.has(m.version))) return [];

  const applied: number[] = [];
  const pending = MIGRATIONS.length;
  for (const migration of MIGRATIONS) {
    const done = await db.transaction().execute(async (tx) => {
      if (dialect.name !== 'postgres') {
        // A write statement takes SQLite's RESERVED lock, so a second process waits here.
        await sql`update smsgw_migrations set version = version where 0 = 1`.execute(tx);
      }
      const row = await tx
        .selectFrom('smsgw_migrations')
        .select('version')
        .where('version', '=', migration.version)
        .executeTakeFirst();
      if (row) return false;
      logger?.info({ version: migration.version, name: migration.name, of: pending }, 'applying migration');
      const started = Date.now();
      await migration.up(tx, dialect);
      await tx
        .insertInto('smsgw_migrations')
        .values({ version: migration.version, name: migration.name, applied_at: Date.now() })
        .execute();
      logger?.info({ version: migration.version, ms: Date.now() - started }, 'migration applied');
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
