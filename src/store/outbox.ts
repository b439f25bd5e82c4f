import type { Kysely } from 'kysely';
import { insertRows } from './insert-rows.js';
import type { Database } from './schema.js';

/** A message-level job (src/store/job-kinds.ts), run by src/store/message-jobs.ts. */
export interface NewJob {
  readonly kind: string;
  readonly subjectId: number;
  readonly accountId: number;
  readonly runAt: number;
}

/** Writes work rows inside the caller's transaction (the outbox pattern). */
export async function enqueue(tx: Kysely<Database>, jobs: readonly NewJob[], now: number): Promise<void> {
  await insertRows(
    tx,
    'outbox',
    ['kind', 'subject_id', 'account_id', 'run_at', 'created_at'],
    jobs.map((j) => [j.kind, j.subjectId, j.accountId, j.runAt, now]),
  );
}
