import { NotFoundError } from '../domain/errors.js';
import type { Status } from '../domain/status.js';
import type { Account, MessageRecord, Store } from '../store/port.js';
import { MESSAGE_SORT_FIELDS } from '../store/port.js';
import {
  commonListParams,
  msisdnParam,
  numberListParam,
  refParam,
  sortParam,
  type ListQuery,
} from './list-query.js';
import { outboundWithOptions, plainOutbound, type ReadOptions } from './outbound-view.js';

/** The options path segment, one of the values its schema allows (`meta`, `status`, both in either order). */
export function readOptions(options: 'meta' | 'status' | 'meta,status' | 'status,meta'): ReadOptions {
  return { meta: options.includes('meta'), status: options.includes('status') };
}

export async function findMessage(store: Store, account: Account, id: number): Promise<MessageRecord> {
  const message = await store.messages.get(account.id, id);
  if (!message) throw new NotFoundError('No message with that messageID');
  return message;
}

export async function readMessage(store: Store, account: Account, id: number) {
  return messageView(store, await findMessage(store, account, id));
}

export async function readMessageWithOptions(
  store: Store,
  account: Account,
  id: number,
  options: ReadOptions,
) {
  const message = await findMessage(store, account, id);
  return outboundWithOptions(message, await store.messages.recipientStatuses(message.id), options);
}

/** The plain shape: `to` lists the recipients. */
export async function messageView(store: Store, message: MessageRecord) {
  const recipients = await store.messages.recipientStatuses(message.id);
  return plainOutbound(
    message,
    recipients.map((r) => r.msisdn),
  );
}

export interface MessageListQuery extends ListQuery {
  readonly paused?: boolean;
  /** Messages with this recipient (decisions §16). */
  readonly to?: string;
  /** Messages with at least one recipient in this status. */
  readonly status?: Status;
}

export async function listMessages(store: Store, account: Account, query: MessageListQuery, now: number) {
  const senders = numberListParam('from', query.from);
  const ref = refParam(query.ref);
  const { paused, completed, status } = query;
  const recipient = msisdnParam('to', query.to);
  const { rows, more } = await store.messages.list(account.id, {
    ...commonListParams(query, account.timezone, now),
    ...(senders !== undefined && { senders }),
    ...(ref !== undefined && { ref }),
    ...(paused !== undefined && { paused }),
    ...(completed !== undefined && { completed }),
    ...(recipient !== undefined && { recipient }),
    ...(status !== undefined && { status }),
    sort: sortParam(query.sort, MESSAGE_SORT_FIELDS),
  });
  const recipients = await store.messages.recipientsOf(rows.map((r) => r.id));
  return { data: rows.map((m) => plainOutbound(m, recipients.get(m.id) ?? [])), more_results: more };
}
