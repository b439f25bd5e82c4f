import type { Selectable } from 'kysely';
import { STATUS_CODES } from '../../src/domain/status.js';
import type { MessagesTable, RecipientsTable } from '../../src/store/schema.js';
import type { BenchDatabase } from './database.js';
import { openBulkWriter } from './bulk-writer.js';
import { progress } from './progress.js';

/** Senders of the generated messages, used evenly, so a `from=` filter matches a tenth of them. */
export const SEED_SENDERS = [
  'Acme',
  'AcmeAlerts',
  'Shop',
  'Bank',
  'Clinic',
  '+61491570100',
  '+61491570101',
  '+61491570102',
  '+61491570103',
  '+61491570104',
] as const;

export const SEED_SPAN_MS = 7 * 24 * 60 * 60 * 1000;

export interface SeedOptions {
  readonly accountId: number;
  readonly messages: number;
  /** created_at runs evenly from `now - SEED_SPAN_MS` up to `now`. */
  readonly now: number;
}

export interface SeedResult {
  readonly rows: number;
  readonly elapsedMs: number;
  readonly firstCreatedAt: number;
}

const BATCH = 20_000;

/**
 * Writes `messages` stored messages of one recipient each straight into the store, with
 * progress on stderr. Typed against the store's table shapes, so a schema change that the
 * seeder does not fill in breaks the type check, not the benchmark run.
 */
export async function seedMessages(db: BenchDatabase, options: SeedOptions): Promise<SeedResult> {
  const writer = await openBulkWriter(db);
  const bar = progress(`seeding ${db.engine}`, options.messages, 'messages');
  const started = performance.now();
  const firstCreatedAt = options.now - SEED_SPAN_MS;
  try {
    let messageId = await writer.nextId('messages');
    let recipientId = await writer.nextId('recipients');
    for (let done = 0; done < options.messages;) {
      const size = Math.min(BATCH, options.messages - done);
      const messages: Selectable<MessagesTable>[] = [];
      const recipients: Selectable<RecipientsTable>[] = [];
      for (let i = 0; i < size; i++) {
        const n = done + i;
        const createdAt = firstCreatedAt + Math.floor((n * SEED_SPAN_MS) / options.messages);
        // Everything older than an hour has been delivered; the rest is still on its way.
        const final = options.now - createdAt > 3_600_000;
        messages.push(messageRow(options.accountId, messageId, n, createdAt, final));
        recipients.push(recipientRow(options.accountId, recipientId, messageId, n, createdAt, final));
        messageId += 1;
        recipientId += 1;
      }
      await writer.write([
        ['messages', messages],
        ['recipients', recipients],
      ]);
      done += size;
      bar.update(done);
    }
    await writer.finish();
  } finally {
    bar.finish();
    await writer.close();
  }
  return { rows: options.messages, elapsedMs: performance.now() - started, firstCreatedAt };
}

function messageRow(
  accountId: number,
  id: number,
  n: number,
  createdAt: number,
  final: boolean,
): Selectable<MessagesTable> {
  return {
    id,
    account_id: accountId,
    sender: SEED_SENDERS[n % SEED_SENDERS.length]!,
    body: `Your verification code is ${String(n % 1_000_000).padStart(6, '0')}`,
    ref: n % 2 === 0 ? `order-${n}` : null,
    callback_url: null,
    delivery_report: null,
    send_at: createdAt,
    expires_at: null,
    paused: 0,
    created_at: createdAt,
    complete_at: final ? createdAt + 4_000 : null,
    num_parts: 1,
    encoding: 'gsm7',
    num_recipients: 1,
    open_recipients: final ? 0 : 1,
    credits_reserved: 0,
    balance_used: final ? 1 : 0,
    window: null,
  };
}

function recipientRow(
  accountId: number,
  id: number,
  messageId: number,
  n: number,
  createdAt: number,
  final: boolean,
): Selectable<RecipientsTable> {
  return {
    id,
    message_id: messageId,
    msisdn: `+614${String(n % 100_000_000).padStart(8, '0')}`,
    status: final ? 'delivered' : 'pending',
    status_code: final ? STATUS_CODES.delivered : STATUS_CODES.pending,
    status_at: final ? createdAt + 4_000 : createdAt,
    submitted_at: final ? createdAt + 50 : null,
    sent_at: final ? createdAt + 200 : null,
    final_at: final ? createdAt + 4_000 : null,
    reached_carrier: final ? 1 : 0,
    attempts: final ? 1 : 0,
    account_id: accountId,
    // Pending rows here are scheduled-like: not send work until released.
    due_at: null,
    locked_by: null,
    release_at: null,
  };
}
