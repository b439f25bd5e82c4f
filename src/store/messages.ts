import { CompiledQuery, sql, type Kysely, type Selectable } from 'kysely';
import type { DeliveryReportType } from '../domain/delivery-report.js';
import type { Encoding } from '../domain/parts.js';
import { STATUS_CODES, type Status } from '../domain/status.js';
import { completeIdempotencyIn } from './idempotency.js';
import { recordSmppSubmitsIn } from './smpp/submits.js';
import { insertRows, insertRowsReturning } from './insert-rows.js';
import { listPage, type ListSort } from './list-page.js';
import { recipientFilters } from './message-filters.js';
import { JOB } from './job-kinds.js';
import { enqueue, type NewJob } from './outbox.js';
import type {
  CreateMessageResult,
  MessageListQuery,
  MessageRecord,
  MessageSortField,
  MessageStore,
  NewMessageInput,
  QueuedWork,
} from './port.js';
import type { Dialect } from './dialect.js';
import type { Database, MessagesTable, RecipientsTable } from './schema.js';
import { list, runShaped } from './shaped-sql.js';
import type { Changed, TransitionSink } from './transitions.js';
import { countEntered, countedTransaction, type OnEntered } from './entered.js';
import type { SendHandoff, SendWork } from './sending.js';
import { SUPPRESSED_CODE } from './suppressions.js';
import { setHold, type DeliveryHandoff, type DeliveryHold } from './webhooks.js';

const SORT_COLUMNS = {
  messageID: 'id',
  created_at: 'created_at',
  send_at: 'send_at',
  complete_at: 'complete_at',
  from: 'sender',
  ref: 'ref',
} as const satisfies Record<MessageSortField, keyof MessagesTable>;

const LIST_SORT: ListSort<keyof typeof SORT_COLUMNS> = {
  columns: SORT_COLUMNS,
  nullable: new Set(['complete_at', 'ref']),
};

export interface MessageStoreOptions {
  readonly sink?: TransitionSink | undefined;
  readonly handoff?: SendHandoff | undefined;
  /** The webhooks an acceptance queues (submitted, or aborted when suppressed), held likewise. */
  readonly deliveries?: DeliveryHandoff | undefined;
  readonly onEntered?: OnEntered | undefined;
}

export function messageStore(
  db: Kysely<Database>,
  dialect: Dialect,
  options: MessageStoreOptions = {},
): MessageStore {
  const { sink, handoff, deliveries, onEntered } = options;
  const createMany = async (items: readonly NewMessageInput[]) => {
    const hold: HeldSends | undefined = handoff && {
      node: handoff.node,
      taken: 0,
      take: (n) => handoff.take(n),
      work: [],
    };
    // A report per recipient at most (submitted, or aborted), and a summary per message. Held
    // whatever their endpoint's circuit (this thread cannot see it): the sender hands a paused
    // endpoint's back unattempted, for a claim once it reopens.
    const room = deliveries?.take(items.reduce((n, item) => n + item.recipients.length + 1, 0)) ?? 0;
    const held: DeliveryHold | undefined =
      deliveries && room > 0 ? { holder: deliveries.node, room, accepts: () => true, held: [] } : undefined;
    try {
      const results = await countedTransaction(db, onEntered, (tx) => {
        if (held) setHold(tx, held);
        return createIn(tx, dialect, items, sink, hold);
      });
      if (hold && hold.work.length > 0) handoff!.handOff(hold.work);
      if (held) {
        deliveries!.give(held.room);
        if (held.held.length > 0) deliveries!.handOff(held.held);
      }
      return results;
    } catch (error) {
      if (hold) handoff!.give(hold.taken);
      deliveries?.give(room);
      throw error;
    }
  };
  return {
    async create(message, recipients, credits) {
      const [result] = await createMany([{ message, recipients, credits }]);
      return result!;
    },

    createMany,

    async get(accountId, id) {
      const row = await db
        .selectFrom('messages')
        .selectAll()
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return row ? toMessage(row) : null;
    },

    async recipientStatuses(messageId) {
      const rows = await db
        .selectFrom('recipients')
        .select(['msisdn', 'status', 'status_code'])
        .where('message_id', '=', messageId)
        .orderBy('id')
        .execute();
      return rows.map((r) => ({ msisdn: r.msisdn, status: r.status as Status, statusCode: r.status_code }));
    },

    recipientsOf: recipientsReader(db),

    async list(accountId, q: MessageListQuery) {
      // Only what a list item shows: turning all 18 columns of 100 rows into JavaScript values
      // took more than half of the query's time.
      const filters = await recipientFilters(db, dialect, q);
      let query = db
        .selectFrom('messages')
        .select(['id', 'sender', 'body', 'send_at', 'expires_at', 'ref', 'callback_url', 'paused'])
        .where(filters.sparse ? sql<number>`+account_id` : sql.ref('account_id'), '=', accountId);
      // `+created_at` keeps SQLite's planner (which has no statistics) from choosing the
      // created_at index and sorting the whole 24-hour window; it walks (account_id, id) instead.
      query = query.where(sql<number>`+created_at`, '>=', q.createdMin);
      if (q.createdMax !== undefined) query = query.where('created_at', '<=', q.createdMax);
      if (q.idMin !== undefined) query = query.where('id', '>=', q.idMin);
      if (q.idMax !== undefined) query = query.where('id', '<=', q.idMax);
      if (q.senders && q.senders.length > 0) query = query.where('sender', 'in', q.senders);
      if (q.ref === null) query = query.where('ref', 'is', null);
      else if (q.ref !== undefined) query = query.where('ref', '=', q.ref);
      if (q.paused !== undefined) query = query.where('paused', '=', q.paused ? 1 : 0);
      if (q.completed !== undefined) query = query.where('complete_at', q.completed ? 'is not' : 'is', null);
      for (const condition of filters.where) query = query.where(condition);
      const page = await listPage(query, LIST_SORT, q.sort, q.limit, q.offset);
      return {
        rows: page.rows.map((r) => ({
          id: r.id,
          sender: r.sender,
          body: r.body,
          sendAt: r.send_at,
          expiresAt: r.expires_at,
          ref: r.ref,
          callbackUrl: r.callback_url,
          paused: r.paused === 1,
        })),
        more: page.more,
      };
    },
  };
}

/**
 * Recipients of a list page, each message's in the order given, as one string from one row:
 * `id:msisdn,id:msisdn,…` (msisdns are `+` and digits, so neither separator occurs in one).
 * better-sqlite3 builds each row object through the V8 API, a value at a time: one aggregated
 * value instead of a row per recipient took a 100-message page from ~103 to ~71 µs (SQLite at
 * 1M messages, microbench). string_agg with ORDER BY is the same on PostgreSQL and SQLite ≥ 3.44.
 * The text differs only in how many ids there are; Kysely builds a node per id, so it is
 * compiled once per count.
 */
function recipientsReader(db: Kysely<Database>): MessageStore['recipientsOf'] {
  const texts = new Map<number, string>();
  const textFor = (count: number) => {
    let text = texts.get(count);
    if (text === undefined) {
      const ids = Array.from({ length: count }, () => 0);
      text = db
        .selectFrom('recipients')
        .select(
          sql<string | null>`string_agg(message_id || ':' || msisdn, ',' order by message_id, id)`.as(
            'pairs',
          ),
        )
        .where('message_id', 'in', ids)
        .compile().sql;
      // A page holds at most 500 messages; the cap only guards against other callers.
      if (texts.size >= 1000) texts.clear();
      texts.set(count, text);
    }
    return text;
  };
  return async (messageIds) => {
    const result = new Map<number, string[]>(messageIds.map((id) => [id, []]));
    if (messageIds.length === 0) return result;
    const { rows } = await db.executeQuery<{ pairs: string | null }>(
      CompiledQuery.raw(textFor(messageIds.length), [...messageIds]),
    );
    const pairs = rows[0]?.pairs;
    if (!pairs) return result;
    for (const pair of pairs.split(',')) {
      const colon = pair.indexOf(':');
      result.get(Number(pair.slice(0, colon)))?.push(pair.slice(colon + 1));
    }
    return result;
  };
}

/**
 * Recipients of a message due now are queued for the carrier in the POST's own commit
 * (`submitted`, which makes each one send work) up to this many; a larger message starts `pending` and the
 * engine releases it in chunks (CONTROL_CHUNK), so one POST never holds the writer for long.
 * Releasing in the engine cost two more transactions per batch of POSTs, which on SQLite held
 * the single writer the API waits for (ingest bench: 45% of the engine's transaction time).
 */
export const RELEASE_AT_ACCEPT_MAX = 1000;

/**
 * Stores each message with its recipients, reserves its credits and queues its work.
 * Messages are handled in order, so an earlier one may take credits a later one needed.
 */
/** What one acceptance transaction holds for its node's engine (see SendHandoff). */
interface HeldSends {
  readonly node: string;
  taken: number;
  readonly take: (n: number) => number;
  readonly work: SendWork[];
}

export async function createIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  items: readonly NewMessageInput[],
  sink?: TransitionSink,
  hold?: HeldSends,
): Promise<CreateMessageResult[]> {
  const results: CreateMessageResult[] = [];
  const accepted: { input: NewMessageInput; reserved: number; result: number }[] = [];
  for (const input of items) {
    let reserved = 0;
    if (input.credits > 0) {
      const taken = await reserveCredits(tx, input.message.accountId, input.credits);
      if (taken.kind === 'credit_insufficient') {
        results.push(taken);
        continue;
      }
      reserved = taken.reserved;
    }
    accepted.push({ input, reserved, result: results.length });
    results.push({ kind: 'created', id: 0, queued: [] });
  }
  const ids = await insertMessages(tx, accepted);
  for (const [i, { input }] of accepted.entries()) {
    if (input.idempotency)
      await completeIdempotencyIn(tx, input.message.accountId, input.idempotency, ids[i]!);
  }
  await recordSmppSubmitsIn(
    tx,
    accepted.flatMap(({ input }, i) =>
      input.smppRegisteredDelivery
        ? [
            {
              messageId: ids[i]!,
              accountId: input.message.accountId,
              registeredDelivery: input.smppRegisteredDelivery,
              partIds: input.smppPartIds ?? [],
            },
          ]
        : [],
    ),
  );

  // One row per recipient in the order given, whatever its status, so reads list them as posted.
  const rows: unknown[][] = [];
  const dueRows: unknown[][] = [];
  let pending = 0;
  let aborted = 0;
  // Due now too, but never held here: their account's send_rate is spent by the claims.
  let metered = 0;
  const jobs: NewJob[] = [];
  const dueMessages = new Map<
    number,
    {
      accountId: number;
      at: number;
      reported: boolean;
      sender: string;
      body: string;
      expiresAt: number | null;
    }
  >();
  const createdAt = items[0]?.message.createdAt ?? 0;
  /** Per message: what it left for an engine to claim (QueuedWork). */
  const leftFor = new Map<number, Set<QueuedWork>>();
  const leave = (id: number, work: QueuedWork) => {
    const kinds = leftFor.get(id);
    if (kinds) kinds.add(work);
    else leftFor.set(id, new Set([work]));
  };
  accepted.forEach(({ input: { message, recipients, suppressed, releaseAt, metered: rated }, result }, i) => {
    const id = ids[i]!;
    results[result] = { kind: 'created', id, queued: [] };
    const at = message.createdAt;
    // The message's work is queued in the same commit: accepted means it will be sent.
    const dueNow = !message.paused && message.sendAt <= at && recipients.length <= RELEASE_AT_ACCEPT_MAX;
    let firstRelease = Infinity;
    let open = 0;
    let due = false;
    for (const msisdn of recipients) {
      if (suppressed?.has(msisdn)) {
        // Final at once (decisions §17): never sent, so it reaches neither the queue nor a carrier.
        rows.push([
          id,
          message.accountId,
          msisdn,
          'aborted',
          SUPPRESSED_CODE,
          at,
          null,
          null,
          null,
          at,
          null,
        ]);
        aborted++;
        continue;
      }
      open++;
      const notBefore = releaseAt?.get(msisdn);
      if (dueNow && (notBefore === undefined || notBefore <= at)) {
        const row = [
          id,
          message.accountId,
          msisdn,
          'submitted',
          STATUS_CODES.submitted,
          at,
          at,
          at,
          null,
          null,
          null,
        ];
        rows.push(row);
        if (rated) {
          metered++;
          leave(id, 'sends');
        } else dueRows.push(row);
        due = true;
        continue;
      }
      rows.push([
        id,
        message.accountId,
        msisdn,
        'pending',
        STATUS_CODES.pending,
        at,
        null,
        null,
        null,
        null,
        notBefore ?? null,
      ]);
      pending++;
      firstRelease = Math.min(firstRelease, Math.max(notBefore ?? message.sendAt, message.sendAt));
    }
    if (due) {
      // Only per_recipient reports the move to submitted (decisions §10).
      dueMessages.set(id, {
        accountId: message.accountId,
        at,
        reported: message.deliveryReport === 'per_recipient',
        sender: message.sender,
        body: message.body,
        expiresAt: message.expiresAt,
      });
    }
    if (!message.paused && firstRelease !== Infinity) {
      jobs.push({ kind: JOB.release, subjectId: id, accountId: message.accountId, runAt: firstRelease });
      leave(id, 'jobs');
    }
    if (message.expiresAt !== null && open > 0) {
      jobs.push({ kind: JOB.expire, subjectId: id, accountId: message.accountId, runAt: message.expiresAt });
      leave(id, 'jobs');
    }
  });
  countEntered(tx, 'pending', pending);
  countEntered(tx, 'submitted', dueRows.length + metered);
  countEntered(tx, 'aborted', aborted);
  // The first recipients due now, as many as the node's engine has room for, are held by it.
  const held = hold ? hold.take(dueRows.length) : 0;
  if (hold) hold.taken += held;
  for (let i = 0; i < held; i++) dueRows[i]![LOCKED_BY] = hold!.node;
  for (let i = held; i < dueRows.length; i++) leave(dueRows[i]![MESSAGE_ID] as number, 'sends');
  const changed: Changed[] = [];
  if (dueRows.length === 0 && metered === 0 && aborted === 0) {
    await insertRows(tx, 'recipients', RECIPIENT_COLUMNS, rows);
  } else {
    const inserted = await insertRowsReturning<{
      id: number;
      message_id: number;
      msisdn: string;
      status: string;
      locked_by: string | null;
    }>(tx, 'recipients', RECIPIENT_COLUMNS, rows, ['id', 'message_id', 'msisdn', 'status', 'locked_by']);
    for (const r of inserted) {
      if (r.status === 'aborted') {
        changed.push({
          recipientId: r.id,
          messageId: r.message_id,
          msisdn: r.msisdn,
          status: 'aborted',
          code: SUPPRESSED_CODE,
          at: createdAt,
          reachedCarrier: false,
        });
        continue;
      }
      if (r.status !== 'submitted') continue;
      const due = dueMessages.get(r.message_id)!;
      if (r.locked_by !== null && hold) {
        hold.work.push({
          recipientId: r.id,
          messageId: r.message_id,
          accountId: due.accountId,
          to: r.msisdn,
          from: due.sender,
          body: due.body,
          attempts: 0,
          claimedAt: due.at,
        });
      }
      if (due.reported) {
        changed.push({
          recipientId: r.id,
          messageId: r.message_id,
          msisdn: r.msisdn,
          status: 'submitted',
          code: STATUS_CODES.submitted,
          at: due.at,
          reachedCarrier: false,
        });
      }
    }
  }
  if (dialect.numbersApart && rows.length > 0) await insertNumbers(tx, ids);
  await enqueue(tx, jobs, createdAt);
  if (sink && changed.length > 0) await sink(tx, changed);
  return results.map((r) => {
    const queued = r.kind === 'created' ? leftFor.get(r.id) : undefined;
    return queued ? { ...r, queued: [...queued] } : r;
  });
}

/** The numbers of these messages' recipients, just written (Dialect.numbersApart). */
async function insertNumbers(tx: Kysely<Database>, messageIds: readonly number[]): Promise<void> {
  await runShaped(
    tx,
    'recipient-numbers',
    (p) =>
      'insert into "recipient_numbers" ("msisdn", "message_id", "recipient_id") ' +
      `select "msisdn", "message_id", "id" from "recipients" where "message_id" ${p.in()}`,
    [list(messageIds)],
  );
}

/**
 * The messages of a group commit in one INSERT (a statement per message was a fifth of the
 * commit's statements under load), their ids in the order given. Both engines number the rows
 * of one INSERT in VALUES order (SQLite, the single writer, takes the next rowid row by row;
 * PostgreSQL calls nextval row by row), so the n-th smallest id returned is the n-th message.
 */
async function insertMessages(
  tx: Kysely<Database>,
  accepted: readonly { input: NewMessageInput; reserved: number }[],
): Promise<number[]> {
  const rows = accepted.map(({ input: { message, recipients, suppressed }, reserved }) => {
    const open = suppressed ? recipients.filter((r) => !suppressed.has(r)).length : recipients.length;
    return [
      message.accountId,
      message.sender,
      message.body,
      message.ref,
      message.callbackUrl,
      message.deliveryReport,
      message.sendAt,
      message.expiresAt,
      message.paused ? 1 : 0,
      message.createdAt,
      message.numParts,
      message.encoding,
      recipients.length,
      open,
      reserved,
      // Every recipient suppressed: complete as it is accepted.
      open === 0 ? message.createdAt : null,
      message.window ? JSON.stringify(message.window) : null,
    ];
  });
  const back = await insertRowsReturning<{ id: number }>(tx, 'messages', MESSAGE_COLUMNS, rows, ['id']);
  return back.map((r) => Number(r.id)).sort((a, b) => a - b);
}

const MESSAGE_COLUMNS = [
  'account_id',
  'sender',
  'body',
  'ref',
  'callback_url',
  'delivery_report',
  'send_at',
  'expires_at',
  'paused',
  'created_at',
  'num_parts',
  'encoding',
  'num_recipients',
  'open_recipients',
  'credits_reserved',
  'complete_at',
  'window',
] as const satisfies readonly (keyof MessagesTable)[];
// A submitted recipient is send work as it is written (src/store/sending.ts); a suppressed one
// is final (final_at); a pending one may wait for its window (release_at).
const RECIPIENT_COLUMNS = [
  'message_id',
  'account_id',
  'msisdn',
  'status',
  'status_code',
  'status_at',
  'submitted_at',
  'due_at',
  'locked_by',
  'final_at',
  'release_at',
] as const satisfies readonly (keyof RecipientsTable)[];
const LOCKED_BY = RECIPIENT_COLUMNS.indexOf('locked_by');
const MESSAGE_ID = RECIPIENT_COLUMNS.indexOf('message_id');

/** Atomic on both engines: the balance can never go negative under concurrent sends. */
async function reserveCredits(
  tx: Kysely<Database>,
  accountId: number,
  credits: number,
): Promise<{ kind: 'reserved'; reserved: number } | { kind: 'credit_insufficient'; available: number }> {
  const taken = await tx
    .updateTable('accounts')
    .set((eb) => ({ credits: eb('credits', '-', credits) }))
    .where('id', '=', accountId)
    .where('credits', 'is not', null)
    .where('credits', '>=', credits)
    .returning('credits')
    .executeTakeFirst();
  if (taken) return { kind: 'reserved', reserved: credits };
  const account = await tx
    .selectFrom('accounts')
    .select('credits')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  // Unlimited since the caller looked: nothing to reserve.
  return account.credits === null
    ? { kind: 'reserved', reserved: 0 }
    : { kind: 'credit_insufficient', available: account.credits };
}

function toMessage(row: Selectable<MessagesTable>): MessageRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    sender: row.sender,
    body: row.body,
    ref: row.ref,
    callbackUrl: row.callback_url,
    deliveryReport: row.delivery_report as DeliveryReportType | null,
    sendAt: row.send_at,
    expiresAt: row.expires_at,
    paused: row.paused === 1,
    createdAt: row.created_at,
    completeAt: row.complete_at,
    numParts: row.num_parts,
    encoding: row.encoding as Encoding,
    numRecipients: row.num_recipients,
    openRecipients: row.open_recipients,
    creditsReserved: row.credits_reserved,
    balanceUsed: row.balance_used,
  };
}
