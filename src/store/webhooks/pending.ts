import { sql, type SqlBool } from 'kysely';

/**
 * `state = 'pending'` with the value in the statement's text, not bound: the queue's indexes
 * hold pending rows only (migration 6), and SQLite uses such a partial index only for a query
 * whose own text implies the index's WHERE.
 */
export const isPending = sql<SqlBool>`state = 'pending'`;
