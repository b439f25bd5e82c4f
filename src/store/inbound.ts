import type { Kysely, Selectable } from 'kysely';
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

/** Runs inside the transaction that stores the message (a webhook queue row goes here). */
export type InboundStoredSink = (tx: Kysely<Database>, id: number) => Promise<void>;

export interface InboundStore {
  /** The route of a normalised msisdn; null when no account owns it. */
  route(msisdn: string): Promise<InboundRoute | null>;
  /** Stores the message and runs `onStored` in the same transaction: both commit or neither. */
  create(message: NewInbound, onStored?: InboundStoredSink): Promise<InboundRecord>;
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

export function inboundStore(db: Kysely<Database>): InboundStore {
  return {
    async route(msisdn) {
      const row = await db
        .selectFrom('numbers')
        .innerJoin('accounts', 'accounts.id', 'numbers.account_id')
        .select([
          'numbers.id as number_id',
          'numbers.account_id',
          'numbers.ref',
          'numbers.inbound_url as number_url',
          'accounts.inbound_url as account_url',
        ])
        .where('numbers.msisdn', '=', msisdn)
        .executeTakeFirst();
      if (!row) return null;
      return {
        accountId: row.account_id,
        numberId: row.number_id,
        ref: row.ref,
        numberUrl: row.number_url,
        accountUrl: row.account_url,
      };
    },

    async create(message, onStored) {
      return db.transaction().execute(async (tx) => {
        const row = await tx
          .insertInto('inbound_messages')
          .values({
            account_id: message.accountId,
            number_id: message.numberId,
            sender: message.sender,
            recipient: message.recipient,
            body: message.body,
            ref: message.ref,
            received_at: message.receivedAt,
            completed_at: message.completedAt,
            connector: message.connector,
            created_at: message.createdAt,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await onStored?.(tx, row.id);
        return toInbound(row);
      });
    },

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
