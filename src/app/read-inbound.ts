import { formatUnixSeconds } from '../domain/dates.js';
import { NotFoundError } from '../domain/errors.js';
import { INBOUND_SORT_FIELDS, type InboundRecord } from '../store/inbound.js';
import type { Account, Store } from '../store/port.js';
import { commonListParams, numberListParam, refParam, sortParam, type ListQuery } from './list-query.js';

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
export async function readInbound(store: Store, account: Account, id: number) {
  const message = await store.inbound.get(account.id, id);
  if (!message) throw new NotFoundError('No inbound message with that messageID');
  return inboundView(message);
}

export async function listInbound(store: Store, account: Account, query: ListQuery, now: number) {
  const senders = numberListParam('from', query.from);
  const ref = refParam(query.ref);
  const { completed } = query;
  // The interface names the window created_at; for an inbound message that is its receipt time.
  const { createdMin, createdMax, ...paging } = commonListParams(query, account.timezone, now);
  const { rows, more } = await store.inbound.list(account.id, {
    ...paging,
    receivedMin: createdMin,
    ...(createdMax !== undefined && { receivedMax: createdMax }),
    ...(senders !== undefined && { senders }),
    ...(ref !== undefined && { ref }),
    ...(completed !== undefined && { completed }),
    sort: sortParam(query.sort, INBOUND_SORT_FIELDS),
  });
  return { data: rows.map(inboundView), more_results: more };
}
