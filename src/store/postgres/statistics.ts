/**
 * Planner statistics for tables that grow faster than autovacuum looks at them.
 *
 * PostgreSQL plans from statistics that ANALYZE gathers, and autovacuum analyzes a table once
 * 50 rows + 10 % of it have changed, looking once a minute (autovacuum_naptime). A new smsgw
 * database fills from empty much faster than that: for its first minute or more the queue tables
 * have no statistics at all, and without them the planner takes `connector = 'smpp'` as matching
 * a few rows of recipient_parts instead of all of them. Each receipt batch then read every part
 * of the connector (9 ms per 100 receipts at 50,000 parts, growing with the table) where its key
 * lookups take under 1 ms; the send claim and the status updates went the same way.
 *
 * This keeper analyzes a table of smsgw's schema once its changes since the last ANALYZE
 * exceed its size then (it has doubled, or been rewritten): about a dozen times while a table
 * grows from 1,000 rows to a million, each a sample of 3,000 rows (STATISTICS_TARGET). A large
 * table's 10 % comes long before its 100 %, so autovacuum keeps doing its own work there; this only
 * covers the young tables it would reach too late. Several nodes may run it on one database: one
 * pass runs at a time (an advisory lock), and SKIP_LOCKED passes over a table autovacuum is
 * analyzing already.
 */
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../schema.js';

export interface StatisticsKeeper {
  stop(): Promise<void>;
}

/** Changes a table needs before its first ANALYZE here (autovacuum's own floor is 50). */
const MIN_CHANGES = 1_000;
/**
 * The sample and detail of these analyses: 300 rows per unit, so 3,000 rows, with up to 10 most
 * common values and 10 histogram buckets per column (PostgreSQL's default, 100, samples 30,000).
 * What the young tables' plans turn on is coarse (how many rows, how many of them have one
 * status or connector, whether the due times are past), and a sample of 3,000 tells that. At
 * 100, these ANALYZEs took an eighth of PostgreSQL's CPU in a 50,000-recipient engine bench
 * (120–200 ms each on recipients). Autovacuum's own, once a table is large, use the default.
 */
const STATISTICS_TARGET = 10;
/** Often enough that a table filling at thousands of rows a second is analyzed within a second. */
const DEFAULT_INTERVAL_MS = 1_000;

/**
 * Tables of the current schema that changed more than their size since they were analyzed, of
 * those this role may analyze (their owner's; a table it may not analyze would only be skipped
 * with a warning in PostgreSQL's log, every second).
 */
async function outgrown(db: Kysely<Database>): Promise<{ name: string; changes: number; rows: number }[]> {
  const { rows } = await sql<{ name: string; changes: number | string; rows: number | string }>`
    select s.relname as name, s.n_mod_since_analyze as changes, greatest(c.reltuples, 0) as rows
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = current_schema()
      and s.n_mod_since_analyze > greatest(${MIN_CHANGES}, c.reltuples)
      and pg_has_role(c.relowner, 'usage')`.execute(db);
  return rows.map((r) => ({ name: r.name, changes: Number(r.changes), rows: Number(r.rows) }));
}

/**
 * The lock of a pass, per schema (the two-key form, apart from the migrations' one-key lock).
 * Every node runs this keeper on its own timer; without it two passes that overlapped both read
 * a table as outgrown, and the second analyzed it again as soon as the first let go of it: with
 * three nodes in the cluster bench, 10 ANALYZEs of recipients for 50,000 recipients where one
 * node made 4. With it, alternating runs of three nodes made 18 and 20 ANALYZEs in all (553 and
 * 647 ms) against 21 and 22 (656 and 737 ms) without.
 */
const PASS_LOCK = 7312002;

/**
 * One pass: analyzes every table of the current schema that has outgrown its statistics, and
 * returns their names. A pass that another session (another node) is running already does
 * nothing: it holds the lock from its read of the counters to its last ANALYZE, and each ANALYZE
 * resets its table's counter as it ends, so the next pass sees what is left to do. Each ANALYZE
 * is a transaction of its own, as before: one transaction around the pass held back the cleanup
 * of every table's dead rows while it ran.
 */
export async function analyzeOutgrownTables(db: Kysely<Database>, logger?: Logger): Promise<string[]> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_lock(${PASS_LOCK}, hashtext(current_schema())) as locked`.execute(conn);
    if (!rows[0]?.locked) return [];
    const analyzed: string[] = [];
    try {
      for (const table of await outgrown(conn)) {
        const started = Date.now();
        await conn.transaction().execute(async (tx) => {
          await sql`set local default_statistics_target = ${sql.raw(String(STATISTICS_TARGET))}`.execute(tx);
          await sql`analyze (skip_locked) ${sql.table(table.name)}`.execute(tx);
        });
        analyzed.push(table.name);
        logger?.debug(
          { table: table.name, changes: table.changes, rowsBefore: table.rows, ms: Date.now() - started },
          'table analyzed',
        );
      }
    } finally {
      await sql`select pg_advisory_unlock(${PASS_LOCK}, hashtext(current_schema()))`.execute(conn);
    }
    return analyzed;
  });
}

export function startStatisticsKeeper(
  db: Kysely<Database>,
  logger: Logger,
  intervalMs = DEFAULT_INTERVAL_MS,
): StatisticsKeeper {
  const log = logger.child({ component: 'statistics' });
  let running: Promise<void> | null = null;

  const pass = async () => {
    try {
      await analyzeOutgrownTables(db, log);
    } catch (error) {
      log.warn({ err: error }, 'analyzing growing tables failed; autovacuum will still do it');
    }
  };

  // A pass still running when the next is due (a big table's ANALYZE) is not doubled.
  const timer = setInterval(() => {
    running ??= pass().finally(() => (running = null));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
