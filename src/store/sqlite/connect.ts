import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';
import { boundedCache } from '../../bounded-cache.js';
import { SQLITE_CACHE_MB } from '../../config/config.js';
import type { Connection, Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import type { WriteLock } from './write-lock.js';

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  serialPrimaryKey: 'integer',
  bigInteger: 'integer',
  maxParameters: 32_000,
  rowLocks: false,
  numbersApart: false,
  speculativeOnConflict: false,
  pickedRows: { column: '"id"', open: '"id" in ', close: '' },
  indexedBy: (index) => `indexed by ${index}`,
};

export interface SqliteOptions {
  /** Shared with the other threads of this process that write the same file. */
  readonly writeLock?: WriteLock;
  /**
   * How a transaction waits for the write lock (default `blocking`). `async` lets the thread go
   * on with its event loop until the lock is free. The engine thread waits so: its tasks are
   * short (an SMSC response, a webhook reply), and while it stood still behind the API's
   * transactions its webhook reports fell behind (e2e bench, max-final: p99 lag 5.5–8.6 s
   * blocking, 0.4–1.1 s asynchronously). The API thread blocks: its tasks are long (a
   * 1,000-recipient POST is parsed and validated for milliseconds), and with it also waiting
   * asynchronously bulk ingest was a third slower.
   */
  readonly writeLockWait?: 'blocking' | 'async';
  /** Page cache in MB (SMSGW_SQLITE_CACHE_MB). */
  readonly cacheMb?: number;
  /**
   * A thread of its own checkpoints the WAL (src/store/sqlite/checkpointer.ts): this
   * connection's commits do so only as a backstop, should that thread fall behind or fail.
   */
  readonly checkpointThread?: boolean;
}

export function connectSqlite(path: string, options: SqliteOptions = {}): Connection {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const raw = new BetterSqlite3(path);
  // WAL lets readers run beside the single writer; synchronous=NORMAL in WAL mode survives a
  // process crash (what the SIGKILL test checks) and loses at most the last commits on power loss,
  // for about 10x the commit rate of FULL.
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  // Negative: in KiB rather than pages.
  raw.pragma(`cache_size = -${(options.cacheMb ?? SQLITE_CACHE_MB) * 1024}`);
  // A checkpoint copies each page changed since the last one back into the database file,
  // once however often it changed. The engine changes the same index and table pages in every
  // transaction; at the default of 1,000 pages a checkpoint ran every few dozen transactions
  // and commits cost twice as much (a 20-recipient turn: 530 -> 290 us). The WAL grows to
  // about 40 MB at most before it is copied back.
  raw.pragma(`wal_autocheckpoint = ${options.checkpointThread ? BACKSTOP_CHECKPOINT_PAGES : 10_000}`);
  const statements = withStatementCache(raw);
  const database = options.writeLock ? withWriteLock(statements, raw, options.writeLock) : statements;
  const config = { database };
  const dialect =
    options.writeLock && options.writeLockWait === 'async'
      ? new AsyncLockingSqliteDialect(config, options.writeLock)
      : new SqliteDialect(config);
  const db = new Kysely<Database>({ dialect });
  return {
    db,
    dialect: sqliteDialect,
    close: () => db.destroy(),
  };
}

/**
 * Kysely's SQLite dialect whose transactions wait for the write lock to be free without blocking
 * their thread (WriteLock.whenFree), then take it at BEGIN as every write does.
 */
class AsyncLockingSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly lock: WriteLock,
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    return new AsyncLockingSqliteDriver(this.settings, this.lock);
  }
}

class AsyncLockingSqliteDriver extends SqliteDriver {
  constructor(
    settings: SqliteDialectConfig,
    private readonly lock: WriteLock,
  ) {
    super(settings);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.lock.whenFree();
    await super.beginTransaction(connection);
  }
}

/** About 160 MB of WAL, far past what the checkpointer's thread lets it reach. */
const BACKSTOP_CHECKPOINT_PAGES = 40_000;

/** Most distinct statements kept prepared; IN lists of every length each count as one. */
const STATEMENT_CACHE_SIZE = 2000;

/**
 * Takes the shared write lock around every transaction (BEGIN IMMEDIATE, as everywhere here)
 * and around every write outside one.
 */
function withWriteLock(
  statements: ReturnType<typeof withStatementCache>,
  raw: BetterSqlite3.Database,
  lock: WriteLock,
): SqliteDatabase {
  /** The statement, with `run` wrapped; the rest (never used for writes) as it is. */
  const wrapped = (statement: SqliteStatement, run: SqliteStatement['run']): SqliteStatement => ({
    reader: false,
    run,
    all: (parameters) => statement.all(parameters),
    iterate: (parameters) => statement.iterate(parameters),
  });
  const begin = statements.prepare('begin');
  const beginLocked = wrapped(begin, () => {
    lock.acquire();
    try {
      return begin.run([]);
    } catch (error) {
      lock.release();
      throw error;
    }
  });
  // Kysely rolls back after a failed COMMIT: the lock goes back once the transaction has ended
  // (release() does nothing when this thread does not hold it).
  const ending = (statement: BetterSqlite3.Statement) =>
    wrapped(statement, () => {
      try {
        return statement.run();
      } finally {
        if (!raw.inTransaction) lock.release();
      }
    });
  const locked = <T>(write: () => T): T => {
    lock.acquire();
    try {
      return write();
    } finally {
      lock.release();
    }
  };
  const commit = ending(raw.prepare('commit'));
  const rollback = ending(raw.prepare('rollback'));
  return {
    close: () => statements.close(),
    prepare(sql) {
      if (sql === 'begin') return beginLocked;
      if (sql === 'commit') return commit;
      if (sql === 'rollback') return rollback;
      const statement = statements.prepare(sql);
      if (statement.readonly || raw.inTransaction) return statement;
      // A write on its own, RETURNING ones (read through all()) included.
      return {
        reader: statement.reader,
        run: (parameters) => locked(() => statement.run(parameters)),
        all: (parameters) => locked(() => statement.all(parameters)),
        iterate: (parameters) => statement.iterate(parameters),
      };
    },
  };
}

/**
 * Kysely's SQLite driver prepares every query afresh; profiling the ingest bench showed that
 * as 13–26% of the server's CPU. better-sqlite3 statements are reusable once a query has
 * finished (Kysely runs one at a time and never streams here), so keep them by SQL text.
 */
/** A statement as Kysely uses it, and whether it leaves the database as it is. */
type CachedStatement = SqliteStatement & { readonly readonly: boolean };

function withStatementCache(raw: BetterSqlite3.Database) {
  const statements = boundedCache<string, CachedStatement>(STATEMENT_CACHE_SIZE);
  return {
    close: () => raw.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        // Every transaction here writes, and another process (the CLI beside a running server)
        // may write too: a deferred BEGIN that read first would then fail at its first write
        // (SQLITE_BUSY_SNAPSHOT, no waiting); BEGIN IMMEDIATE waits its turn up front.
        statement = withRowObjects(raw.prepare(sql === 'begin' ? 'begin immediate' : sql));
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * better-sqlite3 builds each row object through the V8 API, a property at a time, the column
 * name internalised again for every value: on the list endpoint that was a third of the
 * server's CPU. Rows fetched as arrays and turned into objects by a function compiled once per
 * statement cost about half as much.
 */
function withRowObjects(statement: BetterSqlite3.Statement): CachedStatement {
  if (!statement.reader) return statement;
  const names = statement.columns().map((c) => c.name);
  // A "__proto__" key in an object literal would set the prototype instead (no such column here).
  if (names.includes('__proto__')) return statement;
  // Same keys in the same order as better-sqlite3's own objects; a repeated name keeps the last value.
  const toObject = new Function(
    'row',
    `return { ${names.map((n, i) => `${JSON.stringify(n)}: row[${i}]`).join(', ')} };`,
  ) as (row: unknown[]) => unknown;
  // raw() switches this statement itself to arrays, for iterate() as well as all().
  statement.raw(true);
  return {
    reader: true,
    readonly: statement.readonly,
    all: (parameters) => (statement.all(parameters) as unknown[][]).map(toObject),
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const row of statement.iterate(parameters) as IterableIterator<unknown[]>) yield toObject(row);
    },
  };
}
