import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Everything that differs between SQLite and PostgreSQL, in one place. Queries elsewhere are
 * written once against Kysely and consult this table instead of testing the engine by name.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** Column type of an auto-incrementing integer primary key. */
  readonly serialPrimaryKey: 'integer' | 'bigserial';
  /** Column type for epoch milliseconds and other values that exceed 2^31. */
  readonly bigInteger: 'integer' | 'bigint';
  /** Most bind parameters one statement may carry; multi-row inserts are chunked below it. */
  readonly maxParameters: number;
  /**
   * PostgreSQL locks rows (FOR UPDATE, and SKIP LOCKED when claiming work) because several
   * nodes write at once; SQLite has a single writer, so it needs neither (nor has the syntax).
   */
  readonly rowLocks: boolean;
  /**
   * Which numbers each message went to is kept in recipient_numbers, written once per
   * recipient, instead of an index of recipients (migration 60): PostgreSQL writes a new entry
   * in every index of a recipient at each status change. SQLite writes an index entry only when
   * its columns change, so it keeps recipients_msisdn.
   */
  readonly numbersApart: boolean;
  /**
   * INSERT … ON CONFLICT makes every row a speculative insertion on PostgreSQL (a probe of the
   * key before the row goes in, a confirmation WAL record after it), where rows expected not to
   * conflict cost less inserted plainly, with ON CONFLICT kept for a retry after a unique
   * violation. SQLite's OR IGNORE is one lookup either way.
   */
  readonly speculativeOnConflict: boolean;
  /**
   * How an UPDATE reaches the rows that its locking subquery picked (a claim): the subquery
   * selects `column`, and the UPDATE's WHERE is `open`, the subquery in parentheses, `close`
   * (so a subquery that Kysely writes, parenthesized already, fits too). PostgreSQL goes by
   * tuple id: the subquery has locked the rows, so nothing moves them before the UPDATE writes
   * them, and a TID scan reads each one where `id in (…)` hashed the ids and looked each up in
   * the primary key again. SQLite's id is its rowid already.
   */
  readonly pickedRows: { readonly column: string; readonly open: string; readonly close: string };
  /**
   * SQL after a table name that pins the index a query reads: SQLite's `INDEXED BY`, for the
   * rare query where its planner (which has no statistics) takes a worse one; nothing on
   * PostgreSQL, whose planner has them.
   */
  indexedBy(index: string): string;
}

export interface Connection {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  close(): Promise<void>;
}
