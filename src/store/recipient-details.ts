/**
 * One message's recipients with everything a person asks about them: status, code and times,
 * the parts the carrier accepted with their receipt states, and every submit attempt.
 */
import type { Kysely } from 'kysely';
import type { Status } from '../domain/status.js';
import { chunk, IN_CHUNK } from './chunks.js';
import type { Database } from './schema.js';

export interface RecipientPart {
  readonly part: number;
  readonly connector: string;
  readonly carrierId: string;
  /** Receipt state; null until the receipt arrives. */
  readonly state: string | null;
  readonly stateAt: number | null;
}

export interface RecipientAttempt {
  readonly connector: string;
  readonly startedAt: number;
  readonly finishedAt: number | null;
  readonly outcome: string | null;
  readonly detail: string | null;
}

export interface RecipientDetail {
  readonly msisdn: string;
  readonly status: Status;
  readonly statusCode: number;
  readonly statusAt: number;
  readonly submittedAt: number | null;
  readonly sentAt: number | null;
  readonly finalAt: number | null;
  readonly parts: RecipientPart[];
  readonly attempts: RecipientAttempt[];
}

export interface RecipientDetailQuery {
  readonly status?: Status;
  readonly limit: number;
  readonly offset: number;
}

export interface RecipientDetailStore {
  /** In the order they were given; the message's ownership is the caller's to check. */
  list(messageId: number, query: RecipientDetailQuery): Promise<{ rows: RecipientDetail[]; more: boolean }>;
}

export function recipientDetailStore(db: Kysely<Database>): RecipientDetailStore {
  return {
    async list(messageId, query) {
      let q = db
        .selectFrom('recipients')
        .select(['id', 'msisdn', 'status', 'status_code', 'status_at', 'submitted_at', 'sent_at', 'final_at'])
        .where('message_id', '=', messageId);
      if (query.status !== undefined) q = q.where('status', '=', query.status);
      const rows = await q
        .orderBy('id')
        .limit(query.limit + 1)
        .offset(query.offset)
        .execute();
      const page = rows.slice(0, query.limit);
      const parts = new Map<number, RecipientPart[]>();
      const attempts = new Map<number, RecipientAttempt[]>();
      for (const ids of chunk(
        page.map((r) => r.id),
        IN_CHUNK,
      )) {
        const partRows = await db
          .selectFrom('recipient_parts')
          .select(['recipient_id', 'part', 'connector', 'carrier_id', 'state', 'state_at'])
          .where('recipient_id', 'in', ids)
          .orderBy('recipient_id')
          .orderBy('part')
          .execute();
        for (const p of partRows) {
          push(parts, p.recipient_id, {
            part: p.part,
            connector: p.connector,
            carrierId: p.carrier_id,
            state: p.state,
            stateAt: p.state_at,
          });
        }
        const attemptRows = await db
          .selectFrom('submit_attempts')
          .select(['recipient_id', 'connector', 'started_at', 'finished_at', 'outcome', 'detail'])
          .where('recipient_id', 'in', ids)
          .orderBy('id')
          .execute();
        for (const a of attemptRows) {
          push(attempts, a.recipient_id, {
            connector: a.connector,
            startedAt: a.started_at,
            finishedAt: a.finished_at,
            outcome: a.outcome,
            detail: a.detail,
          });
        }
      }
      return {
        rows: page.map((r) => ({
          msisdn: r.msisdn,
          status: r.status as Status,
          statusCode: r.status_code,
          statusAt: r.status_at,
          submittedAt: r.submitted_at,
          sentAt: r.sent_at,
          finalAt: r.final_at,
          parts: parts.get(r.id) ?? [],
          attempts: attempts.get(r.id) ?? [],
        })),
        more: rows.length > query.limit,
      };
    },
  };
}

function push<T>(map: Map<number, T[]>, key: number, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
