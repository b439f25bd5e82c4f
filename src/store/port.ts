import type { DeliveryReportType } from '../domain/delivery-report.js';
import type { Encoding } from '../domain/parts.js';
import type { Status } from '../domain/status.js';
import type { BindSlots } from './binds.js';
import type { ConnectorStore } from './connectors.js';
import type { EngineStore } from './engine-store.js';
import type { IdempotencyStore, IdempotentCompletion } from './idempotency.js';
import type { InboundStore } from './inbound.js';
import type { OperationsStore } from './operations.js';
import type { RecipientDetailStore } from './recipient-details.js';
import type { RetentionStore } from './retention.js';
import type { SmppServerStore } from './smpp/index.js';
import type { StatsStore } from './stats.js';
import type { SuppressionStore } from './suppressions.js';
import type { DeliveryWindow } from '../domain/delivery-window.js';
import type { WebhookStore } from './webhooks.js';

/**
 * The storage contract. Each port lists what its callers need and nothing more; both dialects
 * implement it with the same Kysely code (src/store/*.ts) over their own connection.
 */

export interface Account {
  readonly id: number;
  readonly name: string;
  readonly timezone: string;
  /** Credits available; null = unlimited. */
  readonly credits: number | null;
  readonly anySender: boolean;
  readonly callbackUrl: string | null;
  readonly inboundUrl: string | null;
  readonly deliveryReport: DeliveryReportType | null;
  readonly webhookSecret: string;
  readonly prevWebhookSecret: string | null;
  readonly prevSecretUntil: number | null;
  readonly createdAt: number;
  /** API requests per second on each node; null = unlimited (decisions §13). */
  readonly rateLimit: number | null;
  /** Recipients per second handed to carriers across all nodes; null = unlimited. */
  readonly sendRate: number | null;
  /** Inbound STOP/START keywords maintain the suppression list (decisions §17). */
  readonly optOutKeywords: boolean;
  /** Sent from the receiving number in answer to a keyword; null = no answer. */
  readonly optOutReply: string | null;
  /** Default of the body field smart_encoding (decisions §19). */
  readonly smartEncoding: boolean;
  /** Default of the body field window (decisions §20); null = send at any hour. */
  readonly window: DeliveryWindow | null;
}

export interface NewAccount {
  readonly name: string;
  readonly timezone: string;
  readonly credits: number | null;
  readonly anySender: boolean;
  readonly callbackUrl: string | null;
  readonly inboundUrl: string | null;
  readonly deliveryReport: DeliveryReportType | null;
  readonly webhookSecret: string;
  readonly createdAt: number;
  /** Unlimited when absent. */
  readonly rateLimit?: number | null;
  readonly sendRate?: number | null;
  /** Defaults: keywords on, no reply, smart encoding off, no window. */
  readonly optOutKeywords?: boolean;
  readonly optOutReply?: string | null;
  readonly smartEncoding?: boolean;
  readonly window?: DeliveryWindow | null;
}

export type AccountPatch = Partial<
  Pick<
    NewAccount,
    | 'name'
    | 'timezone'
    | 'anySender'
    | 'callbackUrl'
    | 'inboundUrl'
    | 'deliveryReport'
    | 'rateLimit'
    | 'sendRate'
    | 'optOutKeywords'
    | 'optOutReply'
    | 'smartEncoding'
    | 'window'
  >
> & {
  /** Replace the credit balance (null = unlimited). */
  readonly credits?: number | null;
  /** Rotate the webhook secret; the old one stays valid until `prevSecretUntil`. */
  readonly rotateSecret?: { readonly secret: string; readonly prevSecretUntil: number };
};

export interface ApiKeyRecord {
  readonly id: number;
  readonly accountId: number;
  readonly prefix: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

export interface NumberRecord {
  readonly id: number;
  readonly accountId: number;
  readonly msisdn: string;
  readonly ref: string | null;
  readonly inboundUrl: string | null;
  readonly createdAt: number;
}

export interface AccountStore {
  /** Null when the name is taken. */
  create(account: NewAccount): Promise<Account | null>;
  get(id: number): Promise<Account | null>;
  /** Accounts by id, one more than `limit` read so the caller knows whether more exist. */
  list(limit: number, offset: number): Promise<{ rows: Account[]; more: boolean }>;
  getByName(name: string): Promise<Account | null>;
  count(): Promise<number>;
  /** Null when there is no such account; throws NameTakenError when renamed to a taken name. */
  update(id: number, patch: AccountPatch): Promise<Account | null>;
  /** Adds to a limited balance; an unlimited account stays unlimited. */
  addCredits(id: number, amount: number): Promise<Account | null>;
  createKey(accountId: number, keyHash: string, prefix: string, now: number): Promise<ApiKeyRecord>;
  listKeys(accountId: number): Promise<ApiKeyRecord[]>;
  revokeKey(accountId: number, keyId: number, now: number): Promise<boolean>;
  /** The account of a live (not revoked) key. */
  findByKeyHash(keyHash: string): Promise<Account | null>;
  addSender(accountId: number, sender: string, now: number): Promise<void>;
  removeSender(accountId: number, sender: string): Promise<boolean>;
  hasSender(accountId: number, sender: string): Promise<boolean>;
  listSenders(accountId: number): Promise<string[]>;
  /** Returns null when the msisdn already routes to an account. */
  addNumber(number: Omit<NumberRecord, 'id'>): Promise<NumberRecord | null>;
  listNumbers(accountId: number): Promise<NumberRecord[]>;
  removeNumber(accountId: number, msisdn: string): Promise<boolean>;
}

export interface MessageRecord {
  readonly id: number;
  readonly accountId: number;
  readonly sender: string;
  readonly body: string;
  readonly ref: string | null;
  readonly callbackUrl: string | null;
  readonly deliveryReport: DeliveryReportType | null;
  readonly sendAt: number;
  readonly expiresAt: number | null;
  readonly paused: boolean;
  readonly createdAt: number;
  readonly completeAt: number | null;
  readonly numParts: number;
  readonly encoding: Encoding;
  readonly numRecipients: number;
  readonly openRecipients: number;
  readonly creditsReserved: number;
  readonly balanceUsed: number;
}

/** What a list item shows (interface.md "Outbound message"): listing reads nothing more. */
export type MessageListRow = Pick<
  MessageRecord,
  'id' | 'sender' | 'body' | 'sendAt' | 'expiresAt' | 'ref' | 'callbackUrl' | 'paused'
>;

export type NewMessage = Omit<
  MessageRecord,
  'id' | 'completeAt' | 'openRecipients' | 'creditsReserved' | 'balanceUsed'
> & {
  /** Its delivery window (decisions §20), checked again whenever its recipients are released. */
  readonly window?: DeliveryWindow | null;
};

export interface RecipientStatus {
  readonly msisdn: string;
  readonly status: Status;
  readonly statusCode: number;
}

export interface NewMessageInput {
  readonly message: NewMessage;
  /** Every unique recipient, in the order given; `num_recipients` counts them all. */
  readonly recipients: readonly string[];
  /**
   * Recipients the account suppresses (decisions §17): stored final as `aborted` with code 421
   * at once, never sent, no credit reserved for them (`credits` leaves them out).
   */
  readonly suppressed?: ReadonlySet<string>;
  /**
   * Recipients whose delivery window opens after the message is due (decisions §20): they stay
   * `pending` until then, and the message's release job runs again at the earliest of them.
   */
  readonly releaseAt?: ReadonlyMap<string, number>;
  readonly credits: number;
  /** An Idempotency-Key claim this message completes, in its own transaction (decisions §14). */
  readonly idempotency?: IdempotentCompletion;
  /**
   * Accepted over the SMPP server with this registered_delivery (non-zero): its receipts go
   * back as deliver_sm (decisions §21), recorded in the same transaction.
   */
  readonly smppRegisteredDelivery?: number;
  /** The ids the earlier parts of a long SMPP submit were answered with; each gets a receipt. */
  readonly smppPartIds?: readonly string[];
  /**
   * The account has a send_rate (decisions §13): its recipients are never handed to the
   * accepting node's engine at once, but claimed, where the rate's tokens are spent.
   */
  readonly metered?: boolean;
}

/**
 * Work an acceptance left in the database for an engine to find: due recipients not handed to
 * this node's engine (it had no room, or the account's send_rate meters them) and jobs
 * (releases, expiries). Webhooks it queued wake the engine on their own.
 */
export type QueuedWork = 'sends' | 'jobs';

export type CreateMessageResult =
  | { readonly kind: 'created'; readonly id: number; readonly queued: readonly QueuedWork[] }
  | { readonly kind: 'credit_insufficient'; readonly available: number };

export const MESSAGE_SORT_FIELDS = [
  'messageID',
  'created_at',
  'send_at',
  'complete_at',
  'from',
  'ref',
] as const;
export type MessageSortField = (typeof MESSAGE_SORT_FIELDS)[number];

export interface SortKey<F extends string> {
  readonly field: F;
  readonly descending: boolean;
}

export interface MessageListQuery {
  readonly senders?: readonly string[];
  /** Messages with this recipient (normalised msisdn). */
  readonly recipient?: string;
  /** Messages with at least one recipient in this status. */
  readonly status?: Status;
  /** undefined: no filter; null: only messages without a reference. */
  readonly ref?: string | null;
  readonly paused?: boolean;
  readonly completed?: boolean;
  readonly idMin?: number;
  readonly idMax?: number;
  readonly createdMin: number;
  readonly createdMax?: number;
  readonly sort: readonly SortKey<MessageSortField>[];
  readonly limit: number;
  readonly offset: number;
}

export interface MessageStore {
  /**
   * Stores the message with its recipients (all `pending`) and reserves `credits` from a
   * limited account, in one transaction: either everything is stored or nothing is.
   */
  create(message: NewMessage, recipients: readonly string[], credits: number): Promise<CreateMessageResult>;
  /**
   * Several `create`s in one transaction (group commit), in order; one result per item. An item
   * refused for credits does not affect the others.
   */
  createMany(items: readonly NewMessageInput[]): Promise<CreateMessageResult[]>;
  get(accountId: number, id: number): Promise<MessageRecord | null>;
  recipientStatuses(messageId: number): Promise<RecipientStatus[]>;
  /** Recipient msisdns of several messages, in insertion order. */
  recipientsOf(messageIds: readonly number[]): Promise<Map<number, string[]>>;
  list(accountId: number, query: MessageListQuery): Promise<{ rows: MessageListRow[]; more: boolean }>;
}

export interface Store {
  readonly accounts: AccountStore;
  readonly messages: MessageStore;
  readonly engine: EngineStore;
  readonly inbound: InboundStore;
  readonly connectors: ConnectorStore;
  readonly binds: BindSlots;
  readonly webhooks: WebhookStore;
  readonly recipients: RecipientDetailStore;
  readonly stats: StatsStore;
  readonly operations: OperationsStore;
  readonly idempotency: IdempotencyStore;
  readonly retention: RetentionStore;
  readonly suppressions: SuppressionStore;
  readonly smpp: SmppServerStore;
  close(): Promise<void>;
}
