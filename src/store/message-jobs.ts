/**
 * Message jobs (release a due message, expire one whose expires_at passed) are claimed and run
 * in the same transaction of the engine's loop: nothing is held across a carrier call, so
 * they need no lease. PostgreSQL skips the jobs another node's transaction is running.
 */
import type { Kysely } from 'kysely';
import { expireIn, releaseManyIn } from './control.js';
import type { Dialect } from './dialect.js';
import { JOB } from './job-kinds.js';
import { list, runShaped } from './shaped-sql.js';
import type { Database } from './schema.js';
import type { Changed, TransitionSink } from './transitions.js';

export interface MessageJobsRun {
  /** Jobs looked at (a full batch means more may be due). */
  readonly ran: number;
  readonly changed: Changed[];
}

export async function runMessageJobsIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  now: number,
  limit: number,
  sink?: TransitionSink,
): Promise<MessageJobsRun> {
  const lock = dialect.rowLocks ? ' for update skip locked' : '';
  const { rows: jobs } = await runShaped<{ id: number; kind: string; subject_id: number }>(
    tx,
    `due-message-jobs|${lock}`,
    (p) =>
      `select "id", "kind", "subject_id" from "outbox" where "kind" in (${p.list(2)}) and "run_at" <= ${p.one()} ` +
      `order by "run_at", "id" limit ${p.one()}${lock}`,
    [JOB.release, JOB.expire, now, limit],
  );
  if (jobs.length === 0) return { ran: 0, changed: [] };
  const changed: Changed[] = [];
  const finished: number[] = [];
  const releases = jobs.filter((j) => j.kind === JOB.release);
  if (releases.length > 0) {
    const released = await releaseManyIn(
      tx,
      dialect,
      releases.map((j) => j.subject_id),
      now,
      sink,
    );
    changed.push(...released.changed);
    for (const j of releases) if (released.done.has(j.subject_id)) finished.push(j.id);
  }
  for (const job of jobs.filter((j) => j.kind === JOB.expire)) {
    const { more, changed: expired } = await expireIn(tx, dialect, job.subject_id, now, sink);
    changed.push(...expired);
    if (!more) finished.push(job.id);
  }
  for (let i = 0; i < finished.length; i += 512) {
    const ids = finished.slice(i, i + 512);
    await runShaped(tx, 'finish-jobs', (p) => `delete from "outbox" where "id" ${p.in()}`, [list(ids)]);
  }
  return { ran: jobs.length, changed };
}

/** When the next message job is due; null when there is none. */
export async function nextJobDue(db: Kysely<Database>): Promise<number | null> {
  const { rows } = await runShaped<{ next: number | string | null }>(
    db,
    'next-job-due',
    (p) => `select min("run_at") as "next" from "outbox" where "kind" in (${p.list(2)})`,
    [JOB.release, JOB.expire],
  );
  const next = rows[0]?.next;
  return next === null || next === undefined ? null : Number(next);
}
