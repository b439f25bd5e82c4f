import { formatDateTime } from '../domain/dates.js';
import { emptyCounts, type Status, type StatusCounts } from '../domain/status.js';
import type { MessageListRow, MessageRecord, RecipientStatus } from '../store/port.js';

/** The wire shapes of an outbound message (interface.md "Outbound message"). */
export function plainOutbound<T>(m: MessageListRow, to: T) {
  return {
    messageID: m.id,
    to,
    from: m.sender,
    body: m.body,
    send_at: formatDateTime(m.sendAt),
    expires_at: m.expiresAt === null ? null : formatDateTime(m.expiresAt),
    ref: m.ref,
    callbackURL: m.callbackUrl,
    paused: m.paused,
  };
}

export function metaFields(m: MessageRecord) {
  return {
    created_at: formatDateTime(m.createdAt),
    complete_at: m.completeAt === null ? null : formatDateTime(m.completeAt),
    num_parts: m.numParts,
    balance_used: m.balanceUsed,
  };
}

export function statusCounts(recipients: readonly RecipientStatus[]): StatusCounts {
  const counts = emptyCounts();
  for (const r of recipients) counts[r.status] += 1;
  return counts;
}

export interface ReadOptions {
  readonly meta: boolean;
  readonly status: boolean;
}

function statusMap(recipients: readonly RecipientStatus[]): Record<string, Status> {
  return Object.fromEntries(recipients.map((r) => [r.msisdn, r.status]));
}

/** The shape of a cancel: `to` maps each recipient to its status, with the counts. */
export function outboundWithStatus(m: MessageRecord, recipients: readonly RecipientStatus[]) {
  return { ...plainOutbound(m, statusMap(recipients)), status: statusCounts(recipients) };
}

export function outboundWithOptions(
  m: MessageRecord,
  recipients: readonly RecipientStatus[],
  options: ReadOptions,
) {
  const to = options.status ? statusMap(recipients) : recipients.map((r) => r.msisdn);
  return {
    ...plainOutbound(m, to),
    ...(options.meta ? metaFields(m) : {}),
    ...(options.status ? { status: statusCounts(recipients) } : {}),
  };
}
