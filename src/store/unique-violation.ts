/**
 * A unique constraint refused the write: SQLite's extended result code, PostgreSQL's SQLSTATE.
 * The store checks for this instead of reading first, which two writers could both pass.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
