import { formatUnixSeconds } from '../domain/dates.js';
import { NotFoundError } from '../domain/errors.js';
import { INBOUND_SORT_FIELDS, type InboundRecord } from '../store/inbound.js';
import type { Account, Store } from '../store/port.js';
import {
  booleanParam,
  commonListParams,
  numberListParam,
  refParam,
  sortParam,
  type RawQuery,
} from './list-query.js';
import { parseMessageId } from './read-messages.js';

/** The wire shape of an inbound message (interface.md "Inbound message"). */
export function inboundView(m: InboundRecord) {
  return {
    messageID: m.id,
    from: m.sender,
    to: m.recipient,
    body: m.body,
    ref: m.ref,
    received_at: formatUnixSeconds(m.receivedAt),
  };
}

/** Scoped to the key's account: unrouted and other accounts' messages are 404 alike. */
export async function readInbound(store: Store, account: Account, rawId: string) {
  const message = await store.inbound.get(account.id, parseMessageId(rawId));
  if (!message) throw new NotFoundError('No inbound message with that messageID');
  return inboundView(message);
}

export async function listInbound(store: Store, account: Account, query: RawQuery, now: number) {
  const senders = numberListParam(query, 'from');
  const ref = refParam(query);
  const completed = booleanParam(query, 'completed');
  // The interface names the window created_at; for an inbound message that is its receipt time.
  const { createdMin, createdMax, ...paging } = commonListParams(query, account.timezone, now);
  const { rows, more } = await store.inbound.list(account.id, {
    ...paging,
    receivedMin: createdMin,
    ...(createdMax !== undefined && { receivedMax: createdMax }),
    ...(senders !== undefined && { senders }),
    ...(ref !== undefined && { ref }),
    ...(completed !== undefined && { completed }),
    sort: sortParam(query, INBOUND_SORT_FIELDS),
  });
  return { data: rows.map(inboundView), more_results: more };
}
