import type { Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import { enqueue } from './outbox.js';
import type { Database } from './schema.js';
import { JOB } from './job-kinds.js';
import { chunk, IN_CHUNK } from './chunks.js';
import {
  RECIPIENT_ZONE,
  minuteOfDay,
  windowOpensAt,
  type DeliveryWindow,
} from '../domain/delivery-window.js';
import { recipientZone } from '../domain/recipient-zone.js';
import { applyChanges, type Changed, type TransitionSink } from './transitions.js';

/** Recipients moved per job run, so one huge message never holds the writer for long. */
export const CONTROL_CHUNK = 5000;

async function recipientsIn(
  tx: Kysely<Database>,
  messageId: number,
  statuses: readonly string[],
  limit: number,
) {
  const rows = await tx
    .selectFrom('recipients')
    .select('id')
    .where('message_id', '=', messageId)
    .where('status', 'in', statuses)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Releases several due messages in one transaction (what the message-job runner claims together):
 * up to CONTROL_CHUNK pending recipients across them, in message order. Returns the messages
 * fully released; the others (paused ones excepted) have recipients left and run again.
 */
export async function releaseManyIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  messageIds: readonly number[],
  now: number,
  sink?: TransitionSink,
): Promise<{ done: Set<number>; changed: Changed[] }> {
  const messages = await tx
    .selectFrom('messages')
    .innerJoin('accounts', 'accounts.id', 'messages.account_id')
    .select(['messages.id', 'messages.paused', 'messages.account_id', 'messages.window', 'accounts.timezone'])
    .where('messages.id', 'in', messageIds)
    .execute();
  const done = new Set(messages.filter((m) => m.paused === 1).map((m) => m.id));
  const accountOf = new Map(messages.filter((m) => m.paused === 0).map((m) => [m.id, m.account_id]));
  // A job whose message is gone (never, short of manual deletion) has nothing left to do.
  for (const id of messageIds) if (!done.has(id) && !accountOf.has(id)) done.add(id);
  if (accountOf.size === 0) return { done, changed: [] };

  const rows = await tx
    .selectFrom('recipients')
    .select(['id', 'message_id', 'msisdn'])
    .where('message_id', 'in', [...accountOf.keys()])
    .where('status', '=', 'pending')
    // A recipient waiting for its delivery window (decisions §20) stays until it opens.
    .where((eb) => eb.or([eb('release_at', 'is', null), eb('release_at', '<=', now)]))
    .orderBy('message_id')
    .orderBy('id')
    .limit(CONTROL_CHUNK)
    .execute();
  const full = rows.length === CONTROL_CHUNK;
  const last = rows.at(-1)?.message_id;
  for (const id of accountOf.keys()) {
    // With a full chunk, the last message reached (and any after it) may still have recipients.
    if (!full || (last !== undefined && id < last)) done.add(id);
  }
  const held = await holdOutsideWindows(tx, messages, rows, now);
  await rescheduleWaiting(
    tx,
    [...done].filter((id) => accountOf.has(id)),
    accountOf,
    now,
  );
  // Submitted recipients are the send queue itself (due_at is set by the change).
  const changed = await applyChanges(
    tx,
    dialect,
    rows.filter((r) => !held.has(r.id)).map((r) => ({ recipientId: r.id, to: 'submitted' })),
    now,
    sink,
  );
  return { done, changed };
}

/**
 * A windowed message's recipients are checked again as they are released (decisions §20): the
 * openings computed at acceptance hold for a release on time, but not for one that comes late
 * (a paused message resumed at night). Those whose window is closed now wait for its next
 * opening; returned so they are not released.
 */
async function holdOutsideWindows(
  tx: Kysely<Database>,
  messages: readonly { id: number; window: string | null; timezone: string }[],
  rows: readonly { id: number; message_id: number; msisdn: string }[],
  now: number,
): Promise<Set<number>> {
  const held = new Set<number>();
  const windows = new Map(
    messages.flatMap((m) => (m.window === null ? [] : [[m.id, windowOf(m.window, m.timezone)] as const])),
  );
  if (windows.size === 0) return held;
  const byOpening = new Map<number, number[]>();
  for (const r of rows) {
    const w = windows.get(r.message_id);
    if (!w) continue;
    const opens = w.opensAt(r.msisdn, now);
    if (opens <= now) continue;
    held.add(r.id);
    const ids = byOpening.get(opens) ?? [];
    ids.push(r.id);
    byOpening.set(opens, ids);
  }
  // One UPDATE per distinct opening: a message has as many as its recipients have zones.
  for (const [opens, ids] of byOpening) {
    for (const part of chunk(ids, IN_CHUNK)) {
      await tx.updateTable('recipients').set({ release_at: opens }).where('id', 'in', part).execute();
    }
  }
  return held;
}

function windowOf(json: string, accountZone: string) {
  const window = JSON.parse(json) as DeliveryWindow;
  const minutes = { start: minuteOfDay(window.start) ?? 0, end: minuteOfDay(window.end) ?? 0 };
  const byZone = new Map<string, number>();
  return {
    opensAt(msisdn: string, now: number): number {
      const zone = window.timezone === RECIPIENT_ZONE ? recipientZone(msisdn, accountZone) : window.timezone;
      let opens = byZone.get(zone);
      if (opens === undefined) {
        opens = windowOpensAt(minutes, zone, now);
        byZone.set(zone, opens);
      }
      return opens;
    },
  };
}

/**
 * Messages released as far as they can be now that still have recipients waiting for their
 * window get a release job at the earliest opening: the job knows when to come back, so no
 * recipient is looked at before its window opens.
 */
async function rescheduleWaiting(
  tx: Kysely<Database>,
  messageIds: readonly number[],
  accountOf: ReadonlyMap<number, number>,
  now: number,
): Promise<void> {
  if (messageIds.length === 0) return;
  const waiting = await tx
    .selectFrom('recipients')
    .select(['message_id', (eb) => eb.fn.min('release_at').as('next')])
    .where('message_id', 'in', messageIds)
    .where('status', '=', 'pending')
    .where('release_at', '>', now)
    .groupBy('message_id')
    .execute();
  await enqueue(
    tx,
    waiting.map((w) => ({
      kind: JOB.release,
      subjectId: w.message_id,
      accountId: accountOf.get(w.message_id)!,
      runAt: Number(w.next),
    })),
    now,
  );
}

/** Moves a chunk of a message's recipients that have not reached the carrier to `to`. */
async function endUnsentIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  messageId: number,
  to: 'expired' | 'cancelled',
  now: number,
  sink?: TransitionSink,
): Promise<{ more: boolean; changed: Changed[] }> {
  const ids = await recipientsIn(tx, messageId, ['pending', 'submitted'], CONTROL_CHUNK);
  // A recipient that ends leaves the send queue with its status; a node whose submit of it is
  // in flight finds it final when the outcome comes back, and records only the attempt.
  const changed = await applyChanges(
    tx,
    dialect,
    ids.map((recipientId) => ({ recipientId, to })),
    now,
    sink,
  );
  return { more: ids.length === CONTROL_CHUNK, changed };
}

export function expireIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  messageId: number,
  now: number,
  sink?: TransitionSink,
) {
  return endUnsentIn(tx, dialect, messageId, 'expired', now, sink);
}

/** DELETE /sms/message/{id}: every recipient still pending or submitted is cancelled. */
export async function cancelIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  messageId: number,
  now: number,
  sink?: TransitionSink,
) {
  const changed: Changed[] = [];
  for (;;) {
    const step = await endUnsentIn(tx, dialect, messageId, 'cancelled', now, sink);
    changed.push(...step.changed);
    if (!step.more) break;
  }
  await dropMessageJobs(tx, messageId, [JOB.release]);
  return changed;
}

export async function dropMessageJobs(
  tx: Kysely<Database>,
  messageId: number,
  kinds: readonly string[],
): Promise<void> {
  await tx.deleteFrom('outbox').where('subject_id', '=', messageId).where('kind', 'in', kinds).execute();
}

export type PauseOutcome = 'changed' | 'unchanged' | 'nothing_to_change';

/** PATCH {"paused": true}: only recipients still pending can wait. */
export async function pauseIn(tx: Kysely<Database>, messageId: number): Promise<PauseOutcome> {
  const pending = await recipientsIn(tx, messageId, ['pending'], 1);
  if (pending.length === 0) return 'nothing_to_change';
  await tx.updateTable('messages').set({ paused: 1 }).where('id', '=', messageId).execute();
  await dropMessageJobs(tx, messageId, [JOB.release]);
  return 'changed';
}

/** PATCH {"paused": false}: its pending recipients become due at send_at (or now). */
export async function resumeIn(tx: Kysely<Database>, messageId: number, now: number): Promise<PauseOutcome> {
  const message = await tx
    .selectFrom('messages')
    .select(['paused', 'send_at', 'account_id', 'open_recipients'])
    .where('id', '=', messageId)
    .executeTakeFirstOrThrow();
  // A paused message can still end with every recipient final (expired, cancelled): then
  // releasing it changes nothing either, and says so (decisions §3).
  if (message.open_recipients === 0) return 'nothing_to_change';
  if (message.paused === 0) return 'unchanged';
  await tx.updateTable('messages').set({ paused: 0 }).where('id', '=', messageId).execute();
  await dropMessageJobs(tx, messageId, [JOB.release]);
  await enqueue(
    tx,
    [{ kind: JOB.release, subjectId: messageId, accountId: message.account_id, runAt: message.send_at }],
    now,
  );
  return 'changed';
}

/** Recipients `sent` longer than `timeoutMs` without a receipt become `unknown`. */
export async function sweepReceiptTimeoutsIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  now: number,
  timeoutMs: number,
  limit: number,
  sink?: TransitionSink,
): Promise<Changed[]> {
  const rows = await tx
    .selectFrom('recipients')
    .select('id')
    .where('status', '=', 'sent')
    .where('sent_at', '<=', now - timeoutMs)
    .limit(limit)
    .execute();
  return applyChanges(
    tx,
    dialect,
    rows.map((r) => ({ recipientId: r.id, to: 'unknown' })),
    now,
    sink,
  );
}
