import { formatDateTime } from '../domain/dates.js';
import { QueryError, missing } from '../domain/errors.js';
import { STATUSES, type Status } from '../domain/status.js';
import type { Account, Store } from '../store/port.js';
import { DEFAULT_LIMIT, MAX_LIMIT, integerParam, type RawQuery } from './list-query.js';
import { findMessage } from './read-messages.js';

const time = (ms: number | null) => (ms === null ? null : formatDateTime(ms));

/** GET /v1/sms/recipients: one message's recipients with their parts and submit attempts. */
export async function listRecipients(store: Store, account: Account, query: RawQuery) {
  const rawId = query.messageID;
  if (rawId === undefined || rawId === '') throw missing('messageID');
  if (typeof rawId !== 'string') throw new QueryError('messageID', 'messageID may be given only once');
  const message = await findMessage(store, account, rawId);
  const status = query.status;
  if (status !== undefined && (typeof status !== 'string' || !(STATUSES as string[]).includes(status))) {
    throw new QueryError('status', `status must be one of ${STATUSES.join(', ')}`);
  }
  const { rows, more } = await store.recipients.list(message.id, {
    ...(status !== undefined && { status: status as Status }),
    limit: integerParam(query, 'limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT,
    offset: integerParam(query, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0,
  });
  return {
    data: rows.map((r) => ({
      msisdn: r.msisdn,
      status: r.status,
      status_code: r.statusCode,
      status_at: time(r.statusAt),
      submitted_at: time(r.submittedAt),
      sent_at: time(r.sentAt),
      final_at: time(r.finalAt),
      parts: r.parts.map((p) => ({
        part: p.part,
        connector: p.connector,
        carrier_id: p.carrierId,
        state: p.state,
        state_at: time(p.stateAt),
      })),
      attempts: r.attempts.map((a) => ({
        connector: a.connector,
        started_at: time(a.startedAt),
        finished_at: time(a.finishedAt),
        outcome: a.outcome,
        detail: a.detail,
      })),
    })),
    more_results: more,
  };
}
