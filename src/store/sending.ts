import type { Kysely } from 'kysely';
import type { SubmitOutcome } from '../carriers/port.js';
import type { Dialect } from './dialect.js';
import { accountsWithWork, claimJobs, completeJobs, retryJob, type OutboxJob } from './outbox.js';
import { adoptOrphans } from './receipts.js';
import { insertRows, insertRowsReturning } from './insert-rows.js';
import { padded, runShaped } from './shaped-sql.js';
import { JOB } from './job-kinds.js';
import type { Database } from './schema.js';
import { applyChanges, type Change, type Changed, type TransitionSink } from './transitions.js';

/** One recipient to submit, with what the carrier needs and what the result must guard. */
export interface SendWork {
  readonly jobId: number;
  readonly attemptId: number;
  readonly recipientId: number;
  readonly messageId: number;
  readonly accountId: number;
  readonly to: string;
  readonly from: string;
  readonly body: string;
  /** Earlier attempts of this recipient. */
  readonly attempts: number;
}

export interface SubmitResult {
  readonly work: SendWork;
  readonly outcome: SubmitOutcome;
}

/** Delay before the next attempt after `attempts` failed ones, or null to give up (aborted). */
export type RetryDelay = (attempts: number) => number | null;

/**
 * Claims due send work fairly: accounts with work are walked in order and each gets an equal
 * share of the batch, so one account's large batch cannot hold back another's message. In the
 * same transaction each claimed recipient gets a started attempt row; an earlier attempt still
 * open belonged to a worker that died mid-call and is marked interrupted (the duplicate window).
 */
export async function claimSendsIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  worker: string,
  connector: string,
  now: number,
  leaseMs: number,
  limit: number,
  sink?: TransitionSink,
): Promise<SendWork[]> {
  const accounts = await accountsWithWork(tx, JOB.send, 64);
  if (accounts.length === 0) return [];
  const share = Math.max(1, Math.ceil(limit / accounts.length));
  const jobs: OutboxJob[] = [];
  for (const accountId of accounts) {
    if (jobs.length >= limit) break;
    const take = Math.min(share, limit - jobs.length);
    jobs.push(
      ...(await claimJobs(tx, dialect, { kinds: [JOB.send], accountId }, worker, now, leaseMs, take)),
    );
  }
  if (jobs.length === 0) return [];

  const subjects = padded(jobs.map((j) => j.subjectId));
  const { rows } = await runShaped<{
    id: number;
    msisdn: string;
    status: string;
    attempts: number;
    message_id: number;
    sender: string;
    body: string;
    expires_at: number | null;
  }>(
    tx,
    `send-work|${subjects.length}`,
    (p) =>
      'select "r"."id", "r"."msisdn", "r"."status", "r"."attempts", "m"."id" as "message_id", ' +
      '"m"."sender", "m"."body", "m"."expires_at" from "recipients" as "r" ' +
      `inner join "messages" as "m" on "m"."id" = "r"."message_id" where "r"."id" in (${p.list(subjects.length)})`,
    subjects,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const live: { job: OutboxJob; row: (typeof rows)[number] }[] = [];
  const done: number[] = [];
  const expired: Change[] = [];
  for (const job of jobs) {
    const row = byId.get(job.subjectId);
    if (row?.status !== 'submitted') {
      // Cancelled, expired or already handled since the job was written: nothing to send.
      done.push(job.id);
    } else if (row.expires_at !== null && row.expires_at <= now) {
      expired.push({ recipientId: row.id, to: 'expired' });
      done.push(job.id);
    } else {
      live.push({ job, row });
    }
  }
  if (expired.length > 0) await applyChanges(tx, dialect, expired, now, sink);
  await completeJobs(tx, done, worker);
  if (live.length === 0) return [];

  const recipientIds = padded(live.map((l) => l.row.id));
  await runShaped(
    tx,
    `interrupt|${recipientIds.length}`,
    (p) =>
      `update "submit_attempts" set "outcome" = ${p.one()}, "finished_at" = ${p.one()}, "detail" = ${p.one()} ` +
      `where "recipient_id" in (${p.list(recipientIds.length)}) and "outcome" is null`,
    ['interrupted', now, 'the worker stopped during the carrier call', ...recipientIds],
  );
  const attempts = await insertRowsReturning<{ id: number; recipient_id: number }>(
    tx,
    'submit_attempts',
    ['recipient_id', 'connector', 'worker', 'started_at'],
    live.map((l) => [l.row.id, connector, worker, now]),
    ['id', 'recipient_id'],
  );
  const attemptOf = new Map(attempts.map((a) => [a.recipient_id, a.id]));
  return live.map(({ job, row }) => ({
    jobId: job.id,
    attemptId: attemptOf.get(row.id)!,
    recipientId: row.id,
    messageId: row.message_id,
    accountId: job.accountId,
    to: row.msisdn,
    from: row.sender,
    body: row.body,
    attempts: row.attempts,
  }));
}

/**
 * Records carrier outcomes in one transaction: accepted → sent with one part row per carrier
 * id (and any receipts that overtook it), rejected → rejected, temporary failures → retried
 * with backoff or aborted when the policy gives up. Jobs are completed only by their holder.
 */
export async function recordSubmitsIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  worker: string,
  connector: string,
  results: readonly SubmitResult[],
  retryDelay: RetryDelay,
  now: number,
  sink?: TransitionSink,
): Promise<Changed[]> {
  if (results.length === 0) return [];
  const changes: Change[] = [];
  const finished: number[] = [];
  const parts: { carrierId: string; recipientId: number; part: number }[] = [];
  const acceptedAttempts: number[] = [];
  // Refusals mostly share their reason (a carrier's error text): one UPDATE per distinct one.
  const ended = new Map<string, { outcome: string; detail: string; ids: number[] }>();
  for (const { work, outcome } of results) {
    if (outcome.kind === 'accepted') {
      changes.push({ recipientId: work.recipientId, to: 'sent' });
      outcome.carrierIds.forEach((carrierId, i) =>
        parts.push({ carrierId, recipientId: work.recipientId, part: i + 1 }),
      );
      acceptedAttempts.push(work.attemptId);
      finished.push(work.jobId);
      continue;
    }
    const detail = outcome.reason.slice(0, 500);
    const key = `${outcome.kind}\n${detail}`;
    const group = ended.get(key) ?? { outcome: outcome.kind, detail, ids: [] };
    group.ids.push(work.attemptId);
    ended.set(key, group);
    if (outcome.kind === 'rejected' || outcome.kind === 'aborted') {
      changes.push({ recipientId: work.recipientId, to: outcome.kind });
      finished.push(work.jobId);
      continue;
    }
    const delay = retryDelay(work.attempts + 1);
    const after = Math.max(delay ?? 0, outcome.afterMs ?? 0);
    if (delay === null || !(await retryJob(tx, work.jobId, worker, now + after, detail))) {
      if (delay === null) changes.push({ recipientId: work.recipientId, to: 'aborted' });
      finished.push(work.jobId);
    }
  }
  for (const { outcome, detail, ids } of ended.values()) {
    await tx
      .updateTable('submit_attempts')
      .set({ finished_at: now, outcome, detail })
      .where('id', 'in', ids)
      .execute();
  }
  if (acceptedAttempts.length > 0) {
    const accepted = padded(acceptedAttempts);
    await runShaped(
      tx,
      `accepted|${accepted.length}`,
      (p) =>
        `update "submit_attempts" set "finished_at" = ${p.one()}, "outcome" = ${p.one()} ` +
        `where "id" in (${p.list(accepted.length)})`,
      [now, 'accepted', ...accepted],
    );
  }
  const tried = padded(results.map((r) => r.work.recipientId));
  await runShaped(
    tx,
    `tried|${tried.length}`,
    (p) => `update "recipients" set "attempts" = "attempts" + 1 where "id" in (${p.list(tried.length)})`,
    tried,
  );
  const changed = await applyChanges(tx, dialect, changes, now, sink);
  await insertRows(
    tx,
    'recipient_parts',
    ['connector', 'carrier_id', 'recipient_id', 'part'],
    parts.map((p) => [connector, p.carrierId, p.recipientId, p.part]),
    ' on conflict ("connector", "carrier_id") do nothing',
  );
  changed.push(
    ...(await adoptOrphans(
      tx,
      dialect,
      connector,
      parts.map((p) => p.carrierId),
      now,
      sink,
    )),
  );
  await completeJobs(tx, finished, worker);
  return changed;
}
