import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { BenchDatabase, Engine } from './database.js';

export type Row = Readonly<Record<string, string | number | null>>;

/** The tables the seeder fills; both have an integer `id` the writer assigns explicitly. */
export type SeedTable = 'messages' | 'recipients';

/**
 * Writes generated rows past the store's API, as fast as each engine allows. Rows carry
 * every column (ids included) so parents and children can be written without RETURNING.
 */
export interface BulkWriter {
  /** The first free id of a table. */
  nextId(table: SeedTable): Promise<number>;
  /** One transaction for the whole batch, tables in the order given. */
  write(batch: readonly (readonly [SeedTable, readonly Row[]])[]): Promise<void>;
  /** Makes the store consistent again after explicit ids (sequences, statistics). */
  finish(): Promise<void>;
  close(): Promise<void>;
}

/**
 * On the 2-core bench machine, with every index in place: SQLite ~115-135k messages/s (and as
 * many recipients), PostgreSQL ~30k messages/s including the VACUUM ANALYZE at the end.
 */
const WRITERS: Record<Engine, (db: BenchDatabase) => Promise<BulkWriter>> = {
  sqlite: async (db) => sqliteWriter(db.location),
  postgres: async (db) => postgresWriter(db.url),
};

export function openBulkWriter(db: BenchDatabase): Promise<BulkWriter> {
  return WRITERS[db.engine](db);
}

/**
 * SQLite: multi-row prepared INSERTs on a second connection, in one transaction per batch.
 * synchronous=OFF is for this connection only; the server's connection keeps its own setting.
 *
 * The server runs in this same thread and may be in the middle of a transaction (its engine
 * never stops) when a batch starts. A busy timeout would block the thread that has to finish
 * that transaction: a deadlock until the timeout. So the write lock is taken up front (BEGIN
 * IMMEDIATE) without waiting, and a busy attempt is retried after yielding to the event loop.
 */
function sqliteWriter(path: string): BulkWriter {
  const raw = new BetterSqlite3(path);
  raw.pragma('synchronous = OFF');
  raw.pragma('busy_timeout = 0');
  // SQLite allows 32,766 bound values per statement; a few hundred rows per statement is the
  // sweet spot between fewer native calls and cheap statement preparation.
  const statements = new Map<string, BetterSqlite3.Statement>();
  const insert = (table: SeedTable, columns: readonly string[], rows: number) => {
    const key = `${table}:${rows}`;
    let statement = statements.get(key);
    if (!statement) {
      const tuple = `(${columns.map(() => '?').join(',')})`;
      statement = raw.prepare(
        `insert into ${table} (${columns.join(',')}) values ${Array(rows).fill(tuple).join(',')}`,
      );
      statements.set(key, statement);
    }
    return statement;
  };
  const writeRows = (table: SeedTable, rows: readonly Row[]) => {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]!);
    const perStatement = Math.min(500, Math.floor(32_000 / columns.length));
    for (let i = 0; i < rows.length; i += perStatement) {
      const slice = rows.slice(i, i + perStatement);
      const values: (string | number | null)[] = [];
      for (const row of slice) for (const column of columns) values.push(row[column] ?? null);
      insert(table, columns, slice.length).run(values);
    }
  };
  const writeBatch = raw.transaction((batch: readonly (readonly [SeedTable, readonly Row[]])[]) => {
    for (const [table, rows] of batch) writeRows(table, rows);
  });
  return {
    async nextId(table) {
      const row = raw.prepare(`select coalesce(max(id), 0) + 1 as next from ${table}`).get() as {
        next: number;
      };
      return row.next;
    },
    async write(batch) {
      for (let attempt = 1; ; attempt++) {
        try {
          writeBatch.immediate(batch);
          return;
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt > 1_000) throw error;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
    },
    // No ANALYZE: a deployed smsgw never runs it, so the planner sees what production sees.
    async finish() {},
    async close() {
      raw.close();
    },
  };
}

/**
 * PostgreSQL: the batch goes as one JSON text parameter and json_populate_recordset turns it
 * into rows of the table's own type, so there is no per-value bind overhead and no type list
 * to keep in step with the schema.
 */
async function postgresWriter(url: string): Promise<BulkWriter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('set synchronous_commit = off');
  return {
    async nextId(table) {
      const { rows } = await client.query<{ next: string }>(
        `select coalesce(max(id), 0) + 1 as next from ${table}`,
      );
      return Number(rows[0]!.next);
    },
    async write(batch) {
      await client.query('begin');
      try {
        for (const [table, rows] of batch) {
          if (rows.length === 0) continue;
          const columns = Object.keys(rows[0]!).join(',');
          const json = JSON.stringify(rows);
          await client.query(
            `insert into ${table} (${columns}) select ${columns} from json_populate_recordset(null::${table}, $1)`,
            [json],
          );
          // PostgreSQL's store keeps each recipient's number apart too (Dialect.numbersApart).
          if (table === 'recipients') {
            await client.query(
              'insert into recipient_numbers (msisdn, message_id, recipient_id) ' +
                'select msisdn, message_id, id from json_populate_recordset(null::recipients, $1)',
              [json],
            );
          }
        }
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    },
    async finish() {
      for (const table of ['messages', 'recipients'] as const) {
        await client.query(
          `select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`,
        );
      }
      // What autovacuum does within a minute of a bulk load; without it every list query would
      // be planned on empty-table statistics and index-only scans would be off.
      await client.query('vacuum analyze messages, recipients, recipient_numbers');
    },
    async close() {
      await client.end();
    },
  };
}
