import type { Generated } from 'kysely';

/**
 * Table shapes shared by both dialects. Times are epoch milliseconds (bigint in PostgreSQL,
 * parsed to number: every value stays below 2^53). Flags are 0/1 integers in both engines so
 * the queries need no dialect branch.
 */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  senders: SendersTable;
  numbers: NumbersTable;
  messages: MessagesTable;
  recipients: RecipientsTable;
  smsgw_migrations: MigrationsTable;
  outbox: OutboxTable;
  recipient_parts: RecipientPartsTable;
  /** PostgreSQL only (Dialect.numbersApart). */
  recipient_numbers: RecipientNumbersTable;
  orphan_receipts: OrphanReceiptsTable;
  submit_attempts: SubmitAttemptsTable;
  inbound_messages: InboundMessagesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  smpp_connectors: SmppConnectorsTable;
  smpp_routes: SmppRoutesTable;
  nodes: NodesTable;
  connector_binds: ConnectorBindsTable;
  idempotency_keys: IdempotencyKeysTable;
  smpp_users: SmppUsersTable;
  smpp_submits: SmppSubmitsTable;
  smpp_deliveries: SmppDeliveriesTable;
  smpp_binds: SmppBindsTable;
  send_budgets: SendBudgetsTable;
  suppressions: SuppressionsTable;
}

/** An account's send_rate token bucket (decisions §13), shared by every node. */
export interface SendBudgetsTable {
  account_id: number;
  tokens: number;
  refilled_at: number;
}

/** A number an account never sends to (decisions §17). */
export interface SuppressionsTable {
  account_id: number;
  /** Normalised, with '+'. */
  msisdn: string;
  /** manual | stop | import */
  reason: string;
  created_at: number;
}

/** A running smsgw node (decisions §23); its work is taken over when its heartbeat stops. */
export interface NodesTable {
  id: string;
  host: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
}

/** One allowed bind to an SMSC (slot < the connector's max_binds), held by a node. */
export interface ConnectorBindsTable {
  connector: string;
  slot: number;
  node_id: string;
  since: number;
}

export interface OutboxTable {
  id: Generated<number>;
  /** What to do: see JOB in src/store/job-kinds.ts. */
  kind: string;
  /** The message or recipient the work is about. */
  subject_id: number;
  /** Whose work it is, for fair scheduling across accounts. */
  account_id: number;
  run_at: number;
  attempts: Generated<number>;
  locked_by: string | null;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
}

/** Which numbers a message went to, a row per recipient written once (migration 60). */
export interface RecipientNumbersTable {
  msisdn: string;
  message_id: number;
  recipient_id: number;
}

export interface RecipientPartsTable {
  connector: string;
  carrier_id: string;
  recipient_id: number;
  part: number;
  /** How many parts its recipient has; null for parts written before migration 61. */
  parts: number | null;
  /** Receipt state of the part; null until its receipt arrives. */
  state: string | null;
  state_at: number | null;
}

export interface OrphanReceiptsTable {
  connector: string;
  carrier_id: string;
  state: string;
  error: string | null;
  at: number;
}

export interface SubmitAttemptsTable {
  id: Generated<number>;
  recipient_id: number;
  connector: string;
  worker: string;
  started_at: number;
  finished_at: number | null;
  /** accepted | retry | rejected | aborted | interrupted; null while the carrier call is in flight. */
  outcome: string | null;
  detail: string | null;
}

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  timezone: string;
  /** Credits available; null = unlimited. Reservations are taken from here at POST. */
  credits: number | null;
  any_sender: Generated<number>;
  callback_url: string | null;
  inbound_url: string | null;
  delivery_report: string | null;
  webhook_secret: string;
  /** The secret replaced by the last rotation, still signed with until prev_secret_until. */
  prev_webhook_secret: string | null;
  prev_secret_until: number | null;
  created_at: number;
  /** API requests per second, counted per node; null = unlimited (decisions §13). */
  rate_limit: number | null;
  /** Recipients per second handed to carriers, across all nodes; null = unlimited. */
  send_rate: number | null;
  /** STOP/START keywords maintain the suppression list (decisions §17). */
  opt_out_keywords: Generated<number>;
  /** Answered from the receiving number to a keyword; null = no answer. */
  opt_out_reply: string | null;
  /** Default of the body field smart_encoding (decisions §19). */
  smart_encoding: Generated<number>;
  /** Default delivery window, the JSON of the body field `window` (decisions §20). */
  window: string | null;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  /** SHA-256 of the key, hex. Keys are high-entropy random strings, so a fast hash is enough. */
  key_hash: string;
  /** First characters of the key, so a person can tell keys apart in listings. */
  prefix: string;
  created_at: number;
  revoked_at: number | null;
}

export interface SendersTable {
  account_id: number;
  sender: string;
  created_at: number;
}

export interface NumbersTable {
  id: Generated<number>;
  account_id: number;
  msisdn: string;
  ref: string | null;
  inbound_url: string | null;
  created_at: number;
}

export interface MessagesTable {
  id: Generated<number>;
  account_id: number;
  sender: string;
  body: string;
  ref: string | null;
  callback_url: string | null;
  delivery_report: string | null;
  send_at: number;
  expires_at: number | null;
  paused: Generated<number>;
  created_at: number;
  complete_at: number | null;
  num_parts: number;
  encoding: string;
  num_recipients: number;
  /** Recipients not yet in a final status; the message completes when this reaches 0. */
  open_recipients: number;
  /** Credits still held for recipients that have not reached the carrier. */
  credits_reserved: Generated<number>;
  /** parts × recipients that reached the carrier (decisions §7). */
  balance_used: Generated<number>;
  /** The delivery window it was sent with, as JSON (decisions §20); null: any hour. */
  window: string | null;
}

export interface RecipientsTable {
  id: Generated<number>;
  message_id: number;
  msisdn: string;
  status: string;
  status_code: number;
  /** Time of the latest status change. */
  status_at: number;
  submitted_at: number | null;
  sent_at: number | null;
  final_at: number | null;
  reached_carrier: Generated<number>;
  attempts: Generated<number>;
  /** The message's account, for fair claiming without a join (null only in rows before migration 7). */
  account_id: number | null;
  /** While submitted: when it may be claimed for the carrier (later after a temporary failure). */
  due_at: number | null;
  /** The node whose submit of it is in flight. */
  locked_by: string | null;
  /** While pending: not released before this (its delivery window opens); null = with its message. */
  release_at: number | null;
}

export interface MigrationsTable {
  version: number;
  name: string;
  applied_at: number;
}

export interface InboundMessagesTable {
  id: Generated<number>;
  /** null: the number it was sent to routes to no account (kept, never listed). */
  account_id: number | null;
  number_id: number | null;
  sender: string;
  recipient: string;
  body: string;
  /** The ref of the number it was sent to, copied when it arrived. */
  ref: string | null;
  received_at: number;
  /** Its webhook was accepted or given up on, or there was none to send (decisions §10). */
  completed_at: number | null;
  connector: string | null;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  /** Sent as `webhook-id` on every attempt and replay, so a receiver can drop duplicates. */
  webhook_id: string;
  account_id: number;
  /** delivery_report | inbound */
  kind: string;
  /** The outbound message (delivery_report) or inbound message (inbound) it is about. */
  message_id: number;
  url: string;
  /** scheme://host:port of `url`: concurrency is limited per origin. */
  origin: string;
  /** The exact JSON body, built once when the delivery was queued. */
  payload: string;
  /** pending | delivered | failed (given up) */
  state: string;
  /** Every attempt ever made, replays included. */
  attempts: Generated<number>;
  /** Failed attempts since it was queued or last replayed: where its retry schedule stands. */
  retry_attempts: Generated<number>;
  /**
   * The node holding it (an attempt in flight or about to start); only that node moves it on.
   * A node that stops beating has its deliveries taken over (src/store/nodes.ts).
   */
  locked_by: string | null;
  /** When it is next tried. */
  next_attempt_at: number;
  created_at: number;
  completed_at: number | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: number;
  duration_ms: number;
  /** HTTP status; null when there was no response. */
  status: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export interface SmppConnectorsTable {
  id: Generated<number>;
  name: string;
  host: string;
  port: number;
  system_id: string;
  password: string;
  system_type: Generated<string>;
  /** transceiver | transmitter_receiver */
  bind_mode: Generated<string>;
  tls: Generated<number>;
  window: Generated<number>;
  /** submit_sm per second; 0 = unlimited. */
  throughput: Generated<number>;
  /** null: chosen per sender. */
  source_ton: number | null;
  source_npi: number | null;
  dest_ton: Generated<number>;
  dest_npi: Generated<number>;
  /** 0 (SMSC default alphabet) or 3 (Latin-1) for GSM-7 text. */
  default_data_coding: Generated<number>;
  /** udh8 | udh16 | sar | payload */
  concatenation: Generated<string>;
  request_receipts: Generated<number>;
  enabled: Generated<number>;
  /** Binds to this SMSC across all nodes. */
  max_binds: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface SmppRoutesTable {
  id: Generated<number>;
  /** '+' and 0-15 digits; '+' alone matches every destination. */
  prefix: string;
  connector_id: number;
  /** Lower goes first. */
  priority: Generated<number>;
  created_at: number;
}

export interface IdempotencyKeysTable {
  account_id: number;
  key: string;
  /** SHA-256 (hex) of the request body as canonical JSON. */
  fingerprint: string;
  /** running | done */
  state: string;
  /** The request holding a running key; null once done. */
  owner: string | null;
  /** When a running key's holder is presumed dead and another request may take it. */
  locked_until: number | null;
  message_id: number | null;
  response_status: number | null;
  /** The first answer's exact JSON body, replayed as it was. */
  response_body: string | null;
  created_at: number;
}

/** An account's SMPP credentials for the customer-facing server (decisions §21). */
export interface SmppUsersTable {
  account_id: number;
  system_id: string;
  /** scrypt$<salt hex>$<hash hex> */
  password_hash: string;
  max_binds: number;
  window: number;
  created_at: number;
  updated_at: number;
}

/** A message accepted over SMPP with registered_delivery set: its receipts go back as deliver_sm. */
export interface SmppSubmitsTable {
  message_id: number;
  account_id: number;
  registered_delivery: number;
  /** Provisional ids of the earlier parts of a long submit, comma-separated; null: one part. */
  part_ids: string | null;
}

/** A deliver_sm (receipt or MO) owed to a customer's receiver bind. */
export interface SmppDeliveriesTable {
  id: Generated<number>;
  account_id: number;
  /** receipt | mo */
  kind: string;
  payload: string;
  /** pending | done */
  state: string;
  attempts: Generated<number>;
  locked_by: string | null;
  locked_until: number | null;
  next_attempt_at: number;
  created_at: number;
  done_at: number | null;
}

/** A customer bind held by a node; the MO path reads whether an account has any. */
export interface SmppBindsTable {
  id: string;
  account_id: number;
  node_id: string;
  mode: string;
  since: number;
}
