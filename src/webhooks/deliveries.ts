/** The admin API's view of webhook deliveries (decisions §9): list them, replay a failed one. */
import { DEFAULT_LIMIT, MAX_LIMIT, integerParam, type RawQuery } from '../app/list-query.js';
import { formatDateTime } from '../domain/dates.js';
import { ConflictError, NotFoundError, QueryError } from '../domain/errors.js';
import type { Store } from '../store/port.js';
import {
  DELIVERY_KINDS,
  DELIVERY_STATES,
  type DeliveryKind,
  type DeliveryRecord,
  type DeliveryState,
} from '../store/webhooks.js';

export function deliveryView(d: DeliveryRecord) {
  return {
    deliveryID: d.id,
    webhook_id: d.webhookId,
    kind: d.kind,
    messageID: d.messageId,
    url: d.url,
    state: d.state,
    attempts: d.attempts.map((a) => ({
      attempted_at: formatDateTime(a.attemptedAt),
      status: a.status,
      duration_ms: a.durationMs,
      error: a.error,
      response_excerpt: a.responseExcerpt,
    })),
    created_at: formatDateTime(d.createdAt),
    next_attempt_at: d.state === 'pending' ? formatDateTime(d.nextAttemptAt) : null,
    completed_at: d.completedAt === null ? null : formatDateTime(d.completedAt),
  };
}

/** The filters of GET /admin/v1/webhooks and `smsgw webhooks list`, named as the query parameters. */
export interface DeliveryFilter {
  readonly messageID?: number;
  readonly kind?: DeliveryKind;
  readonly state?: DeliveryState;
  readonly limit?: number;
  readonly offset?: number;
}

function oneOf<T extends string>(query: RawQuery, name: string, allowed: readonly T[]): T | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const value = allowed.find((a) => a === raw);
  if (value === undefined) throw new QueryError(name, `${name} must be one of ${allowed.join(', ')}`);
  return value;
}

/** The filter from text (the CLI's options); the HTTP edge gets it typed from its schema. */
export function parseDeliveryFilter(query: RawQuery): DeliveryFilter {
  const messageID = integerParam(query, 'messageID', 1, Number.MAX_SAFE_INTEGER);
  const kind = oneOf<DeliveryKind>(query, 'kind', DELIVERY_KINDS);
  const state = oneOf<DeliveryState>(query, 'state', DELIVERY_STATES);
  const limit = integerParam(query, 'limit', 1, MAX_LIMIT);
  const offset = integerParam(query, 'offset', 0, Number.MAX_SAFE_INTEGER);
  return {
    ...(messageID !== undefined && { messageID }),
    ...(kind !== undefined && { kind }),
    ...(state !== undefined && { state }),
    ...(limit !== undefined && { limit }),
    ...(offset !== undefined && { offset }),
  };
}

/** Newest first; with `accountId`, only that account's (the public API's listing). */
export async function listDeliveries(
  store: Pick<Store, 'webhooks'>,
  filter: DeliveryFilter,
  accountId?: number,
) {
  const { messageID, kind, state } = filter;
  const { rows, more } = await store.webhooks.list({
    ...(accountId !== undefined && { accountId }),
    ...(messageID !== undefined && { messageId: messageID }),
    ...(kind !== undefined && { kind }),
    ...(state !== undefined && { state }),
    limit: filter.limit ?? DEFAULT_LIMIT,
    offset: filter.offset ?? 0,
  });
  return { data: rows.map(deliveryView), more_results: more };
}

/**
 * A failed delivery is queued again with the same webhook-id and body. With `accountId`, another
 * account's delivery is not found (decisions §2: 404, never 403).
 */
export async function replayDelivery(
  store: Pick<Store, 'webhooks'>,
  id: number,
  now: number,
  accountId?: number,
) {
  const owned =
    Number.isSafeInteger(id) &&
    id > 0 &&
    (accountId === undefined || (await store.webhooks.get(id))?.accountId === accountId);
  const outcome = owned ? await store.webhooks.replay(id, now) : ({ kind: 'not_found' } as const);
  if (outcome.kind === 'not_found') throw new NotFoundError('No webhook delivery with that deliveryID');
  if (outcome.kind === 'not_failed') {
    throw new ConflictError(
      'deliveryID',
      `Only a failed delivery can be replayed; this one is ${outcome.state}`,
    );
  }
  return deliveryView(outcome.delivery);
}
