import type { Kysely, Selectable } from 'kysely';
import { normaliseMsisdn } from '../domain/msisdn.js';
import { countedTransaction } from './entered.js';
import type { SuppressionEffects } from './suppressions.js';
import { insertRowsReturning } from './insert-rows.js';
import { applyOptOutsIn } from './opt-out.js';
import { list, runShaped } from './shaped-sql.js';
import type { SortKey } from './port.js';
import { listPage, type ListSort } from './list-page.js';
import type { Database, InboundMessagesTable } from './schema.js';

export interface InboundRecord {
  readonly id: number;
  /** null: unrouted (the number it was sent to belongs to no account). */
  readonly accountId: number | null;
  readonly numberId: number | null;
  readonly sender: string;
  readonly recipient: string;
  readonly body: string;
  readonly ref: string | null;
  readonly receivedAt: number;
  readonly completedAt: number | null;
  readonly connector: string | null;
  readonly createdAt: number;
}

export type NewInbound = Omit<InboundRecord, 'id'>;

/** Where an inbound number routes: its account, ref and the webhook URLs that may apply. */
export interface InboundRoute {
  readonly accountId: number;
  readonly numberId: number;
  readonly ref: string | null;
  readonly numberUrl: string | null;
  readonly accountUrl: string | null;
}

export const INBOUND_SORT_FIELDS = ['messageID', 'received_at', 'from', 'to', 'ref'] as const;
export type InboundSortField = (typeof INBOUND_SORT_FIELDS)[number];

export interface InboundListQuery {
  readonly senders?: readonly string[];
  /** undefined: no filter; null: only messages without a reference. */
  readonly ref?: string | null;
  readonly completed?: boolean;
  readonly idMin?: number;
  readonly idMax?: number;
  readonly receivedMin: number;
  readonly receivedMax?: number;
  readonly sort: readonly SortKey<InboundSortField>[];
  readonly limit: number;
  readonly offset: number;
}

/** Runs inside the transaction that stores routed messages (webhook and SMPP queue rows go here). */
export type InboundStoredSink = (tx: Kysely<Database>, stored: readonly StoredInbound[]) => Promise<void>;

/** A message from a handset as a connector raised it; numbers are normalised when stored. */
export interface InboundArrival {
  readonly from: string;
  readonly to: string;
  readonly body: string;
  readonly receivedAt: number;
  readonly connector: string | null;
}

export interface StoredInbound {
  readonly record: InboundRecord;
  /** Where its webhook goes (the number's URL, else the account's); null: none to send. */
  readonly url: string | null;
}

/**
 * Stores arrivals inside the caller's transaction: every `to` routed in one read, every row
 * in one INSERT. Carrier data is never refused: an address that is not an msisdn is kept as
 * given, and a `to` no account owns is stored unrouted (account null) so an operator can find
 * it. A message with no webhook to send is completed at once (decisions §10).
 */
export async function storeInboundIn(
  tx: Kysely<Database>,
  arrivals: readonly InboundArrival[],
  now: number,
  effects: SuppressionEffects,
): Promise<StoredInbound[]> {
  if (arrivals.length === 0) return [];
  // Written out, not spread: a spread followed by more properties is V8's slow path.
  const normalised = arrivals.map((a): InboundArrival => ({
    from: normaliseMsisdn(a.from) ?? a.from,
    to: normaliseMsisdn(a.to) ?? a.to,
    body: a.body,
    receivedAt: a.receivedAt,
    connector: a.connector,
  }));
  const routes = await routesIn(tx, [...new Set(normalised.map((a) => a.to))]);
  const urls: (string | null)[] = [];
  const rows = normalised.map((a) => {
    const route = routes.get(a.to) ?? null;
    const url = route ? (route.numberUrl ?? route.accountUrl) : null;
    urls.push(url);
    return [
      route?.accountId ?? null,
      route?.numberId ?? null,
      a.from,
      a.to,
      a.body,
      route?.ref ?? null,
      a.receivedAt,
      url === null ? now : null,
      a.connector,
      now,
    ];
  });
  const inserted = await insertRowsReturning<Selectable<InboundMessagesTable>>(
    tx,
    'inbound_messages',
    INBOUND_COLUMNS,
    rows,
    ['id', ...INBOUND_COLUMNS],
  );
  // Both engines number one INSERT's rows in VALUES order (see insertMessages in messages.ts).
  inserted.sort((a, b) => a.id - b.id);
  const stored = inserted.map((row, i) => ({ record: toInbound(row), url: urls[i]! }));
  await applyOptOutsIn(
    tx,
    effects,
    stored.map((s) => s.record),
    now,
  );
  return stored;
}

const INBOUND_COLUMNS = [
  'account_id',
  'number_id',
  'sender',
  'recipient',
  'body',
  'ref',
  'received_at',
  'completed_at',
  'connector',
  'created_at',
];

/** The routes of normalised msisdns, in one statement per 512. */
async function routesIn(
  tx: Kysely<Database>,
  msisdns: readonly string[],
): Promise<Map<string, InboundRoute>> {
  const routes = new Map<string, InboundRoute>();
  for (let i = 0; i < msisdns.length; i += 512) {
    const part = msisdns.slice(i, i + 512);
    const { rows } = await runShaped<{
      msisdn: string;
      number_id: number;
      account_id: number;
      ref: string | null;
      number_url: string | null;
      account_url: string | null;
    }>(
      tx,
      'inbound-routes',
      (p) =>
        'select "n"."msisdn", "n"."id" as "number_id", "n"."account_id", "n"."ref", ' +
        '"n"."inbound_url" as "number_url", "a"."inbound_url" as "account_url" ' +
        'from "numbers" as "n" inner join "accounts" as "a" on "a"."id" = "n"."account_id" ' +
        `where "n"."msisdn" ${p.in()}`,
      [list(part)],
    );
    for (const r of rows) {
      routes.set(r.msisdn, {
        accountId: r.account_id,
        numberId: r.number_id,
        ref: r.ref,
        numberUrl: r.number_url,
        accountUrl: r.account_url,
      });
    }
  }
  return routes;
}

export interface InboundStore {
  /**
   * Stores one arrival and runs `onStored` (when it routes to an account) in the same
   * transaction: both commit or neither.
   */
  receive(arrival: InboundArrival, now: number, onStored?: InboundStoredSink): Promise<StoredInbound>;
  get(accountId: number, id: number): Promise<InboundRecord | null>;
  list(accountId: number, query: InboundListQuery): Promise<{ rows: InboundRecord[]; more: boolean }>;
}

const SORT_COLUMNS = {
  messageID: 'id',
  received_at: 'received_at',
  from: 'sender',
  to: 'recipient',
  ref: 'ref',
} as const satisfies Record<InboundSortField, keyof InboundMessagesTable>;

const LIST_SORT: ListSort<keyof typeof SORT_COLUMNS> = { columns: SORT_COLUMNS, nullable: new Set(['ref']) };

export function inboundStore(db: Kysely<Database>, effects: SuppressionEffects): InboundStore {
  return {
    // Counted: a keyword's answer creates a recipient, a STOP aborts some (src/store/opt-out.ts).
    receive: (arrival, now, onStored) =>
      countedTransaction(db, effects.onEntered, async (tx) => {
        const [stored] = await storeInboundIn(tx, [arrival], now, effects);
        if (stored!.record.accountId !== null) await onStored?.(tx, [stored!]);
        return stored!;
      }),

    async get(accountId, id) {
      const row = await db
        .selectFrom('inbound_messages')
        .selectAll()
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return row ? toInbound(row) : null;
    },

    async list(accountId, q) {
      let query = db.selectFrom('inbound_messages').selectAll().where('account_id', '=', accountId);
      query = query.where('received_at', '>=', q.receivedMin);
      if (q.receivedMax !== undefined) query = query.where('received_at', '<=', q.receivedMax);
      if (q.idMin !== undefined) query = query.where('id', '>=', q.idMin);
      if (q.idMax !== undefined) query = query.where('id', '<=', q.idMax);
      if (q.senders && q.senders.length > 0) query = query.where('sender', 'in', q.senders);
      if (q.ref === null) query = query.where('ref', 'is', null);
      else if (q.ref !== undefined) query = query.where('ref', '=', q.ref);
      if (q.completed !== undefined) query = query.where('completed_at', q.completed ? 'is not' : 'is', null);
      const page = await listPage(query, LIST_SORT, q.sort, q.limit, q.offset);
      return { rows: page.rows.map(toInbound), more: page.more };
    },
  };
}

function toInbound(row: Selectable<InboundMessagesTable>): InboundRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    numberId: row.number_id,
    sender: row.sender,
    recipient: row.recipient,
    body: row.body,
    ref: row.ref,
    receivedAt: row.received_at,
    completedAt: row.completed_at,
    connector: row.connector,
    createdAt: row.created_at,
  };
}
