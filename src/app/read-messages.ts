import { NotFoundError } from '../domain/errors.js';
import type { Account, MessageRecord, Store } from '../store/port.js';
import { MESSAGE_SORT_FIELDS } from '../store/port.js';
import {
  booleanParam,
  commonListParams,
  msisdnParam,
  numberListParam,
  refParam,
  sortParam,
  statusParam,
  type RawQuery,
} from './list-query.js';
import { outboundWithOptions, plainOutbound, type ReadOptions } from './outbound-view.js';

/** A messageID path segment: a positive integer below 2^53, else the message cannot exist (404). */
export function parseMessageId(raw: string): number {
  if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) === 0) {
    throw new NotFoundError('No message with that messageID');
  }
  return Number(raw);
}

/** `meta`, `status`, or both in either order; anything else is 404 with the reason. */
export function parseReadOptions(raw: string): ReadOptions {
  const values = raw.split(',');
  if (values.length > 2) throw new NotFoundError('options takes at most 2 values: meta, status');
  if (new Set(values).size !== values.length) throw new NotFoundError('options must not repeat a value');
  for (const v of values) {
    if (v !== 'meta' && v !== 'status')
      throw new NotFoundError(`Unknown option "${v}"; use meta, status or both`);
  }
  return { meta: values.includes('meta'), status: values.includes('status') };
}

export async function findMessage(store: Store, account: Account, rawId: string): Promise<MessageRecord> {
  const message = await store.messages.get(account.id, parseMessageId(rawId));
  if (!message) throw new NotFoundError('No message with that messageID');
  return message;
}

export async function readMessage(store: Store, account: Account, rawId: string, options?: ReadOptions) {
  const message = await findMessage(store, account, rawId);
  return messageView(store, message, options);
}

export async function messageView(store: Store, message: MessageRecord, options?: ReadOptions) {
  const recipients = await store.messages.recipientStatuses(message.id);
  if (!options)
    return plainOutbound(
      message,
      recipients.map((r) => r.msisdn),
    );
  return outboundWithOptions(message, recipients, options);
}

export async function listMessages(store: Store, account: Account, query: RawQuery, now: number) {
  const senders = numberListParam(query, 'from');
  const ref = refParam(query);
  const paused = booleanParam(query, 'paused');
  const completed = booleanParam(query, 'completed');
  const recipient = msisdnParam(query, 'to');
  const status = statusParam(query);
  const { rows, more } = await store.messages.list(account.id, {
    ...commonListParams(query, account.timezone, now),
    ...(senders !== undefined && { senders }),
    ...(ref !== undefined && { ref }),
    ...(paused !== undefined && { paused }),
    ...(completed !== undefined && { completed }),
    ...(recipient !== undefined && { recipient }),
    ...(status !== undefined && { status }),
    sort: sortParam(query, MESSAGE_SORT_FIELDS),
  });
  const recipients = await store.messages.recipientsOf(rows.map((r) => r.id));
  return { data: rows.map((m) => plainOutbound(m, recipients.get(m.id) ?? [])), more_results: more };
}
