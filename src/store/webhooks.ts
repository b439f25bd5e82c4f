import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { InboundWebhookPayload } from '../webhooks/payloads.js';
import type { Dialect } from './dialect.js';
import { JOB } from './job-kinds.js';
import { enqueue, retryJob } from './outbox.js';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable } from './schema.js';

/**
 * Webhook deliveries (decisions §10): a row per webhook with its exact body, an outbox job per
 * row for the work, and a row per attempt so a person can read back what happened.
 */

export const DELIVERY_KINDS = ['delivery_report', 'inbound'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface NewDelivery {
  readonly accountId: number;
  readonly kind: DeliveryKind;
  readonly messageId: number;
  readonly url: string;
  /** The JSON body, exactly as every attempt will send it. */
  readonly payload: string;
}

/** Rows per multi-row insert: 10 parameters each, well under either engine's limit. */
const INSERT_CHUNK = 500;
const IN_CHUNK = 500;

/** Random rather than the row id, so a webhook-id never repeats across databases or installs. */
function newWebhookId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/** Concurrency is limited per origin; an unparseable URL is its own origin (it gives up at once). */
export function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

/** Writes deliveries and their outbox jobs inside the caller's transaction (style §3). */
export async function insertDeliveriesIn(
  tx: Kysely<Database>,
  deliveries: readonly NewDelivery[],
  now: number,
): Promise<void> {
  // Deliveries of one message share a URL: parse it once.
  const origins = new Map<string, string>();
  const origin = (url: string) => {
    let o = origins.get(url);
    if (o === undefined) origins.set(url, (o = originOf(url)));
    return o;
  };
  for (let i = 0; i < deliveries.length; i += INSERT_CHUNK) {
    const rows = await tx
      .insertInto('webhook_deliveries')
      .values(
        deliveries.slice(i, i + INSERT_CHUNK).map((d) => ({
          webhook_id: newWebhookId(),
          account_id: d.accountId,
          kind: d.kind,
          message_id: d.messageId,
          url: d.url,
          origin: origin(d.url),
          payload: d.payload,
          state: 'pending',
          next_attempt_at: now,
          created_at: now,
        })),
      )
      .returning(['id', 'account_id'])
      .execute();
    await enqueue(
      tx,
      rows.map((r) => ({ kind: JOB.webhook, subjectId: r.id, accountId: r.account_id, runAt: now })),
      now,
    );
  }
}

export interface InboundWebhookInput {
  readonly inboundId: number;
  readonly accountId: number;
  readonly url: string;
  readonly payload: InboundWebhookPayload;
  /** Default: the wall clock. */
  readonly now?: number;
}

/**
 * Queues the inbound webhook of a message being stored, inside the transaction storing it.
 * When the delivery is accepted or given up on, the message's completed_at is set.
 */
export async function enqueueInboundWebhook(tx: Kysely<Database>, input: InboundWebhookInput): Promise<void> {
  await insertDeliveriesIn(
    tx,
    [
      {
        accountId: input.accountId,
        kind: 'inbound',
        messageId: input.inboundId,
        url: input.url,
        payload: JSON.stringify(input.payload),
      },
    ],
    input.now ?? Date.now(),
  );
}

/** The fields of an inbound message its webhook carries, read inside the storing transaction. */
export async function inboundForWebhookIn(
  tx: Kysely<Database>,
  id: number,
): Promise<{
  id: number;
  from: string;
  to: string;
  body: string;
  ref: string | null;
  receivedAt: number;
  createdAt: number;
} | null> {
  const row = await tx
    .selectFrom('inbound_messages')
    .select(['id', 'sender', 'recipient', 'body', 'ref', 'received_at', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    from: row.sender,
    to: row.recipient,
    body: row.body,
    ref: row.ref,
    receivedAt: row.received_at,
    createdAt: row.created_at,
  };
}

/** What the report sink needs to know about a message whose recipients changed. */
export interface ReportTarget {
  readonly id: number;
  readonly accountId: number;
  readonly ref: string | null;
  /** The message's callbackURL, else the account's callback_url. */
  readonly url: string | null;
  readonly deliveryReport: string | null;
  readonly numParts: number;
  readonly balanceUsed: number;
  readonly completeAt: number | null;
}

export async function reportTargetsIn(
  tx: Kysely<Database>,
  messageIds: readonly number[],
): Promise<ReportTarget[]> {
  const targets: ReportTarget[] = [];
  for (let i = 0; i < messageIds.length; i += IN_CHUNK) {
    const rows = await tx
      .selectFrom('messages as m')
      .innerJoin('accounts as a', 'a.id', 'm.account_id')
      .select([
        'm.id',
        'm.account_id',
        'm.ref',
        'm.callback_url',
        'a.callback_url as account_url',
        'm.delivery_report',
        'm.num_parts',
        'm.balance_used',
        'm.complete_at',
      ])
      .where('m.id', 'in', messageIds.slice(i, i + IN_CHUNK))
      .execute();
    for (const r of rows) {
      targets.push({
        id: r.id,
        accountId: r.account_id,
        ref: r.ref,
        url: r.callback_url ?? r.account_url,
        deliveryReport: r.delivery_report,
        numParts: r.num_parts,
        balanceUsed: Number(r.balance_used),
        completeAt: r.complete_at,
      });
    }
  }
  return targets;
}

/** The recipients among `ids` that reached the carrier (their report carries num_parts). */
export async function reachedCarrierIn(tx: Kysely<Database>, ids: readonly number[]): Promise<Set<number>> {
  const reached = new Set<number>();
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    const rows = await tx
      .selectFrom('recipients')
      .select('id')
      .where('id', 'in', ids.slice(i, i + IN_CHUNK))
      .where('reached_carrier', '=', 1)
      .execute();
    for (const r of rows) reached.add(r.id);
  }
  return reached;
}

export interface RecipientRow {
  readonly messageId: number;
  readonly msisdn: string;
  readonly status: string;
  readonly code: number;
}

/** Every recipient of the messages, in message order: the body of summary and detailed reports. */
export async function recipientsOfIn(
  tx: Kysely<Database>,
  messageIds: readonly number[],
): Promise<RecipientRow[]> {
  const out: RecipientRow[] = [];
  for (const id of messageIds) {
    const rows = await tx
      .selectFrom('recipients')
      .select(['msisdn', 'status', 'status_code'])
      .where('message_id', '=', id)
      .orderBy('id')
      .execute();
    for (const r of rows)
      out.push({ messageId: id, msisdn: r.msisdn, status: r.status, code: r.status_code });
  }
  return out;
}

export interface AccountSecrets {
  readonly current: string;
  readonly previous: string | null;
  /** The previous secret signs too until this time. */
  readonly previousUntil: number | null;
}

/** A delivery claimed for one attempt, with everything the attempt needs. */
export interface ClaimedDelivery {
  readonly jobId: number;
  /** Failed attempts of this job so far: where the retry schedule stands. A replay starts again at 0. */
  readonly jobAttempts: number;
  readonly deliveryId: number;
  readonly webhookId: string;
  readonly accountId: number;
  readonly kind: DeliveryKind;
  readonly messageId: number;
  readonly url: string;
  readonly origin: string;
  readonly payload: string;
  readonly secrets: AccountSecrets;
}

export interface ClaimRequest {
  readonly worker: string;
  readonly now: number;
  readonly leaseMs: number;
  /** Most deliveries in all. */
  readonly limit: number;
  /** Most deliveries this worker may hold of an origin, counting those in `held`. */
  readonly perOrigin: (origin: string) => number;
  /** Deliveries this worker already holds, by origin. */
  readonly held: ReadonlyMap<string, number>;
  /** Origins are walked from just after this one, so every origin gets its turn. */
  readonly after: string | null;
}

export interface ClaimResult {
  readonly deliveries: ClaimedDelivery[];
  /** Where the next claim's walk starts. */
  readonly cursor: string | null;
  /** The claim stopped at `limit` or at the origins it looks at: claiming again may find more. */
  readonly more: boolean;
  /** Origins that may have more due: their due deliveries filled their room, or they had none. */
  readonly backlogged: string[];
}

export interface AttemptRecord {
  readonly attemptedAt: number;
  readonly durationMs: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly responseExcerpt: string;
}

export type DeliveryNext =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'failed' }
  | { readonly kind: 'retry'; readonly at: number };

export interface DeliveryResult {
  readonly delivery: ClaimedDelivery;
  readonly attempt: AttemptRecord;
  readonly next: DeliveryNext;
}

export interface AttemptView {
  readonly attemptedAt: number;
  readonly durationMs: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
}

export interface DeliveryRecord {
  readonly id: number;
  readonly webhookId: string;
  readonly accountId: number;
  readonly kind: DeliveryKind;
  readonly messageId: number;
  readonly url: string;
  readonly state: DeliveryState;
  readonly nextAttemptAt: number;
  readonly createdAt: number;
  readonly completedAt: number | null;
  readonly attempts: AttemptView[];
}

export interface DeliveryQuery {
  readonly messageId?: number;
  readonly kind?: DeliveryKind;
  readonly state?: DeliveryState;
  readonly limit: number;
  readonly offset: number;
}

export type ReplayOutcome =
  | { readonly kind: 'replayed'; readonly delivery: DeliveryRecord }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'not_failed'; readonly state: DeliveryState };

/** What the delivery runner and the admin API need from storage. */
export interface WebhookStore {
  /**
   * Claims due deliveries with a lease: origin by origin, at most `perOrigin` held per origin,
   * so the backlog of one receiver never fills the batch.
   */
  claim(request: ClaimRequest): Promise<ClaimResult>;
  /** Stores the attempts and moves each delivery on; a job is changed only while `worker` holds it. */
  record(worker: string, results: readonly DeliveryResult[], now: number): Promise<void>;
  /** Gives back claimed deliveries that were never attempted (a stopping runner's queue). */
  release(worker: string, jobIds: readonly number[], now: number): Promise<number>;
  /** Frees everything a previous run of this same worker still held when it died. */
  releaseLeases(worker: string, now: number): Promise<number>;
  /** When a pending delivery is next due (or an in-flight one's lease runs out); null if none. */
  nextDue(): Promise<number | null>;
  list(query: DeliveryQuery): Promise<{ rows: DeliveryRecord[]; more: boolean }>;
  get(id: number): Promise<DeliveryRecord | null>;
  /** Queues a failed delivery again, with the same webhook-id and body and a fresh schedule. */
  replay(id: number, now: number): Promise<ReplayOutcome>;
}

/** Origins looked at per claim; the cursor carries the walk on from there next time. */
const ORIGINS_PER_CLAIM = 64;

export function webhookStore(db: Kysely<Database>, dialect: Dialect): WebhookStore {
  const attemptsOf = async (ids: readonly number[]) => {
    const byDelivery = new Map<number, AttemptView[]>();
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const rows = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('delivery_id', 'in', ids.slice(i, i + IN_CHUNK))
        .orderBy('id')
        .execute();
      for (const r of rows) {
        const list = byDelivery.get(r.delivery_id) ?? [];
        list.push(toAttempt(r));
        byDelivery.set(r.delivery_id, list);
      }
    }
    return byDelivery;
  };
  const withAttempts = async (rows: Selectable<WebhookDeliveriesTable>[]) => {
    const attempts = await attemptsOf(rows.map((r) => r.id));
    return rows.map((r) => toDelivery(r, attempts.get(r.id) ?? []));
  };
  const get = async (id: number) => {
    const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? (await withAttempts([row]))[0]! : null;
  };

  /** Frees leases (all of `worker`'s, or only `jobIds`) and makes their deliveries due now. */
  const free = (worker: string, jobIds: readonly number[] | null, now: number) =>
    db.transaction().execute(async (tx) => {
      let freed = 0;
      for (const ids of jobIds === null ? [null] : chunk(jobIds, IN_CHUNK)) {
        let update = tx
          .updateTable('outbox')
          .set({ locked_by: null, locked_until: null })
          .where('kind', '=', JOB.webhook)
          .where('locked_by', '=', worker);
        if (ids !== null) update = update.where('id', 'in', ids);
        const rows = await update.returning('subject_id').execute();
        freed += rows.length;
        for (const subjects of chunk(
          rows.map((r) => r.subject_id),
          IN_CHUNK,
        )) {
          await tx
            .updateTable('webhook_deliveries')
            .set({ next_attempt_at: now })
            .where('id', 'in', subjects)
            .where('state', '=', 'pending')
            .execute();
        }
      }
      return freed;
    });

  return {
    claim: (request) =>
      db.transaction().execute(async (tx) => {
        const { worker, now, leaseMs, perOrigin, held } = request;
        const origins = await originsAfter(tx, request.after ?? '', ORIGINS_PER_CLAIM);
        if (origins.length < ORIGINS_PER_CLAIM && request.after !== null) {
          // Wrap around to the origins up to the cursor (itself included).
          for (const o of await originsAfter(tx, '', ORIGINS_PER_CLAIM - origins.length)) {
            if (o > request.after) break;
            origins.push(o);
          }
        }
        const ids: number[] = [];
        const backlogged: string[] = [];
        let cursor = request.after;
        for (const origin of origins) {
          const room = Math.min(perOrigin(origin) - (held.get(origin) ?? 0), request.limit - ids.length);
          if (ids.length >= request.limit) break;
          cursor = origin;
          if (room <= 0) {
            // Held to its limit by this worker: it may well have more due.
            backlogged.push(origin);
            continue;
          }
          const due = await tx
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('state', '=', 'pending')
            .where('origin', '=', origin)
            .where('next_attempt_at', '<=', now)
            .orderBy('next_attempt_at')
            .limit(room)
            .execute();
          for (const d of due) ids.push(d.id);
          if (due.length === room) backlogged.push(origin);
        }
        const more = ids.length >= request.limit || origins.length >= ORIGINS_PER_CLAIM;
        if (ids.length === 0) return { deliveries: [], cursor, more, backlogged };

        // The outbox lease is the guard (style §5); the delivery rows only point at the work.
        // Jobs are found by subject first: given the due filter too, SQLite's planner walks the
        // whole (kind, run_at) index instead, a full scan of a deep backlog per claim.
        const candidates = await tx
          .selectFrom('outbox')
          .select('id')
          .where('subject_id', 'in', ids)
          .where('kind', '=', JOB.webhook)
          .execute();
        if (candidates.length === 0) return { deliveries: [], cursor, more, backlogged };
        let unlocked = tx
          .selectFrom('outbox')
          .select('id')
          .where(
            'id',
            'in',
            candidates.map((c) => c.id),
          )
          .where('run_at', '<=', now)
          .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]));
        if (dialect.rowLocks) unlocked = unlocked.forUpdate().skipLocked();
        const jobs = await tx
          .updateTable('outbox')
          .set({ locked_by: worker, locked_until: now + leaseMs })
          .where('id', 'in', unlocked)
          .returning(['id', 'subject_id', 'attempts'])
          .execute();
        if (jobs.length === 0) return { deliveries: [], cursor, more, backlogged };
        const claimed = jobs.map((j) => j.subject_id);
        // An attempt in flight is next tried when its lease runs out (if its worker dies), and
        // keeping that in next_attempt_at keeps it out of the next claim's due rows.
        await tx
          .updateTable('webhook_deliveries')
          .set({ next_attempt_at: now + leaseMs })
          .where('id', 'in', claimed)
          .execute();
        const rows = await tx
          .selectFrom('webhook_deliveries as d')
          .innerJoin('accounts as a', 'a.id', 'd.account_id')
          .select([
            'd.id',
            'd.webhook_id',
            'd.account_id',
            'd.kind',
            'd.message_id',
            'd.url',
            'd.origin',
            'd.payload',
            'a.webhook_secret',
            'a.prev_webhook_secret',
            'a.prev_secret_until',
          ])
          .where('d.id', 'in', claimed)
          .execute();
        const byId = new Map(rows.map((r) => [r.id, r]));
        const deliveries = jobs.flatMap((job): ClaimedDelivery[] => {
          const d = byId.get(job.subject_id);
          if (!d) return [];
          return [
            {
              jobId: job.id,
              jobAttempts: job.attempts,
              deliveryId: d.id,
              webhookId: d.webhook_id,
              accountId: d.account_id,
              kind: d.kind as DeliveryKind,
              messageId: d.message_id,
              url: d.url,
              origin: d.origin,
              payload: d.payload,
              secrets: {
                current: d.webhook_secret,
                previous: d.prev_webhook_secret,
                previousUntil: d.prev_secret_until,
              },
            },
          ];
        });
        return { deliveries, cursor, more, backlogged };
      }),

    record: async (worker, results, now) => {
      if (results.length === 0) return;
      await db.transaction().execute(async (tx) => {
        // Every attempt is stored, even one whose lease ran out: the request was made.
        for (const part of chunk(results, INSERT_CHUNK)) {
          await tx
            .insertInto('webhook_attempts')
            .values(
              part.map((r) => ({
                delivery_id: r.delivery.deliveryId,
                attempted_at: r.attempt.attemptedAt,
                duration_ms: r.attempt.durationMs,
                status: r.attempt.status,
                error: r.attempt.error,
                response_excerpt: r.attempt.responseExcerpt === '' ? null : r.attempt.responseExcerpt,
              })),
            )
            .execute();
        }
        // A delivery moves on only while this worker holds its job (style §5). Finished jobs
        // leave the outbox in one guarded delete, which also says which of them were still held.
        const moved = new Set<number>();
        const finished = results.filter((r) => r.next.kind !== 'retry');
        for (const part of chunk(finished, IN_CHUNK)) {
          const deleted = await tx
            .deleteFrom('outbox')
            .where(
              'id',
              'in',
              part.map((r) => r.delivery.jobId),
            )
            .where('locked_by', '=', worker)
            .returning('id')
            .execute();
          const jobs = new Set(deleted.map((d) => d.id));
          for (const r of part) if (jobs.has(r.delivery.jobId)) moved.add(r.delivery.deliveryId);
        }
        for (const state of ['delivered', 'failed'] as const) {
          const ids = finished
            .filter((r) => r.next.kind === state && moved.has(r.delivery.deliveryId))
            .map((r) => r.delivery.deliveryId);
          for (const part of chunk(ids, IN_CHUNK)) {
            await tx
              .updateTable('webhook_deliveries')
              .set((eb) => ({ state, completed_at: now, attempts: eb('attempts', '+', 1) }))
              .where('id', 'in', part)
              .execute();
          }
        }
        for (const r of results) {
          if (r.next.kind !== 'retry') continue;
          const at = r.next.at;
          const error = r.attempt.error ?? (r.attempt.status === null ? null : `HTTP ${r.attempt.status}`);
          if (!(await retryJob(tx, r.delivery.jobId, worker, at, error))) continue;
          moved.add(r.delivery.deliveryId);
          await tx
            .updateTable('webhook_deliveries')
            .set((eb) => ({ next_attempt_at: at, attempts: eb('attempts', '+', 1) }))
            .where('id', '=', r.delivery.deliveryId)
            .execute();
        }
        // Attempts whose lease had run out still count.
        const others = results
          .filter((r) => !moved.has(r.delivery.deliveryId))
          .map((r) => r.delivery.deliveryId);
        for (const part of chunk(others, IN_CHUNK)) {
          await tx
            .updateTable('webhook_deliveries')
            .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
            .where('id', 'in', part)
            .execute();
        }
        // decisions §10: an inbound message is completed once its webhook is accepted or given up on.
        const inbound = finished
          .filter((r) => r.delivery.kind === 'inbound' && moved.has(r.delivery.deliveryId))
          .map((r) => r.delivery.messageId);
        for (const part of chunk(inbound, IN_CHUNK)) {
          await tx
            .updateTable('inbound_messages')
            .set({ completed_at: now })
            .where('id', 'in', part)
            .where('completed_at', 'is', null)
            .execute();
        }
      });
    },

    release: (worker, jobIds, now) => free(worker, jobIds, now),
    releaseLeases: (worker, now) => free(worker, null, now),

    nextDue: async () => {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.min('next_attempt_at').as('next'))
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return row?.next === null || row?.next === undefined ? null : Number(row.next);
    },

    list: async (query) => {
      let q = db.selectFrom('webhook_deliveries').selectAll();
      if (query.messageId !== undefined) q = q.where('message_id', '=', query.messageId);
      if (query.kind !== undefined) q = q.where('kind', '=', query.kind);
      if (query.state !== undefined) q = q.where('state', '=', query.state);
      const rows = await q
        .orderBy('id', 'desc')
        .limit(query.limit + 1)
        .offset(query.offset)
        .execute();
      return { rows: await withAttempts(rows.slice(0, query.limit)), more: rows.length > query.limit };
    },

    get,

    replay: async (id, now) => {
      const outcome = await db.transaction().execute(async (tx) => {
        let q = tx.selectFrom('webhook_deliveries').select(['state', 'account_id']).where('id', '=', id);
        if (dialect.rowLocks) q = q.forUpdate();
        const row = await q.executeTakeFirst();
        if (!row) return { kind: 'not_found' } as const;
        if (row.state !== 'failed') return { kind: 'not_failed', state: row.state as DeliveryState } as const;
        await tx
          .updateTable('webhook_deliveries')
          .set({ state: 'pending', completed_at: null, next_attempt_at: now })
          .where('id', '=', id)
          .execute();
        await enqueue(tx, [{ kind: JOB.webhook, subjectId: id, accountId: row.account_id, runAt: now }], now);
        return null;
      });
      if (outcome !== null) return outcome;
      return { kind: 'replayed', delivery: (await get(id))! };
    },
  };
}

/** Origins with pending deliveries after `after`, in order, one index seek each (no scan of a backlog). */
async function originsAfter(tx: Kysely<Database>, after: string, limit: number): Promise<string[]> {
  if (limit <= 0) return [];
  const result = await sql<{ origin: string | null }>`
    with recursive o(origin) as (
      select min(origin) from webhook_deliveries where state = 'pending' and origin > ${after}
      union all
      select (select min(origin) from webhook_deliveries where state = 'pending' and origin > o.origin)
      from o where o.origin is not null
    )
    select origin from o where origin is not null limit ${limit}`.execute(tx);
  return result.rows.map((r) => r.origin!);
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function toAttempt(r: Selectable<WebhookAttemptsTable>): AttemptView {
  return {
    attemptedAt: r.attempted_at,
    durationMs: r.duration_ms,
    status: r.status,
    error: r.error,
    responseExcerpt: r.response_excerpt,
  };
}

function toDelivery(r: Selectable<WebhookDeliveriesTable>, attempts: AttemptView[]): DeliveryRecord {
  return {
    id: r.id,
    webhookId: r.webhook_id,
    accountId: r.account_id,
    kind: r.kind as DeliveryKind,
    messageId: r.message_id,
    url: r.url,
    state: r.state as DeliveryState,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    attempts,
  };
}
