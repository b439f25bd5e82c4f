import { formatDateTime } from '../domain/dates.js';
import type { Status } from '../domain/status.js';
import type { Account, Store } from '../store/port.js';
import { DEFAULT_LIMIT } from './list-query.js';
import { findMessage } from './read-messages.js';

const time = (ms: number | null) => (ms === null ? null : formatDateTime(ms));

export interface RecipientListQuery {
  readonly messageID: number;
  readonly status?: Status;
  readonly limit?: number;
  readonly offset?: number;
}

/** GET /v1/sms/recipients: one message's recipients with their parts and submit attempts. */
export async function listRecipients(store: Store, account: Account, query: RecipientListQuery) {
  const message = await findMessage(store, account, query.messageID);
  const { rows, more } = await store.recipients.list(message.id, {
    ...(query.status !== undefined && { status: query.status }),
    limit: query.limit ?? DEFAULT_LIMIT,
    offset: query.offset ?? 0,
  });
  return {
    data: rows.map((r) => ({
      msisdn: r.msisdn,
      status: r.status,
      status_code: r.statusCode,
      status_at: formatDateTime(r.statusAt),
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
        started_at: formatDateTime(a.startedAt),
        finished_at: time(a.finishedAt),
        outcome: a.outcome,
        detail: a.detail,
      })),
    })),
    more_results: more,
  };
}
