/**
 * Writing attempts down: every attempt gets its row, and each delivery moves on (delivered,
 * failed, or due again later) only while this worker still holds its job (style §5, §7).
 */
import type { Kysely } from 'kysely';
import { retryJob } from '../outbox.js';
import type { Database } from '../schema.js';
import type { ClaimedDelivery } from './claim.js';
import { chunk, IN_CHUNK, INSERT_CHUNK } from './chunks.js';

export interface AttemptRecord {
  readonly attemptedAt: number;
  readonly durationMs: number;
  readonly status: number | null;
  readonly error: string | null;
  readonly responseExcerpt: string;
}

export type DeliveryNext =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'failed' }
  | { readonly kind: 'retry'; readonly at: number };

export interface DeliveryResult {
  readonly delivery: ClaimedDelivery;
  readonly attempt: AttemptRecord;
  readonly next: DeliveryNext;
}

/** All of a batch in one transaction: its commit costs more than its rows. */
export async function recordAttempts(
  db: Kysely<Database>,
  worker: string,
  results: readonly DeliveryResult[],
  now: number,
): Promise<void> {
  if (results.length === 0) return;
  await db.transaction().execute(async (tx) => {
    // Every attempt is stored, even one whose lease ran out: the request was made.
    for (const part of chunk(results, INSERT_CHUNK)) {
      await tx
        .insertInto('webhook_attempts')
        .values(
          part.map((r) => ({
            delivery_id: r.delivery.deliveryId,
            attempted_at: r.attempt.attemptedAt,
            duration_ms: r.attempt.durationMs,
            status: r.attempt.status,
            error: r.attempt.error,
            response_excerpt: r.attempt.responseExcerpt === '' ? null : r.attempt.responseExcerpt,
          })),
        )
        .execute();
    }
    // A delivery moves on only while this worker holds its job (style §5). Finished jobs
    // leave the outbox in one guarded delete, which also says which of them were still held.
    const moved = new Set<number>();
    const finished = results.filter((r) => r.next.kind !== 'retry');
    for (const part of chunk(finished, IN_CHUNK)) {
      const deleted = await tx
        .deleteFrom('outbox')
        .where(
          'id',
          'in',
          part.map((r) => r.delivery.jobId),
        )
        .where('locked_by', '=', worker)
        .returning('id')
        .execute();
      const jobs = new Set(deleted.map((d) => d.id));
      for (const r of part) if (jobs.has(r.delivery.jobId)) moved.add(r.delivery.deliveryId);
    }
    for (const state of ['delivered', 'failed'] as const) {
      const ids = finished
        .filter((r) => r.next.kind === state && moved.has(r.delivery.deliveryId))
        .map((r) => r.delivery.deliveryId);
      for (const part of chunk(ids, IN_CHUNK)) {
        await tx
          .updateTable('webhook_deliveries')
          .set((eb) => ({ state, completed_at: now, attempts: eb('attempts', '+', 1) }))
          .where('id', 'in', part)
          .execute();
      }
    }
    for (const r of results) {
      if (r.next.kind !== 'retry') continue;
      const at = r.next.at;
      const error = r.attempt.error ?? (r.attempt.status === null ? null : `HTTP ${r.attempt.status}`);
      if (!(await retryJob(tx, r.delivery.jobId, worker, at, error))) continue;
      moved.add(r.delivery.deliveryId);
      await tx
        .updateTable('webhook_deliveries')
        .set((eb) => ({ next_attempt_at: at, attempts: eb('attempts', '+', 1) }))
        .where('id', '=', r.delivery.deliveryId)
        .execute();
    }
    // Attempts whose lease had run out still count.
    const others = results.filter((r) => !moved.has(r.delivery.deliveryId)).map((r) => r.delivery.deliveryId);
    for (const part of chunk(others, IN_CHUNK)) {
      await tx
        .updateTable('webhook_deliveries')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', part)
        .execute();
    }
    // decisions §10: an inbound message is completed once its webhook is accepted or given up on.
    const inbound = finished
      .filter((r) => r.delivery.kind === 'inbound' && moved.has(r.delivery.deliveryId))
      .map((r) => r.delivery.messageId);
    for (const part of chunk(inbound, IN_CHUNK)) {
      await tx
        .updateTable('inbound_messages')
        .set({ completed_at: now })
        .where('id', 'in', part)
        .where('completed_at', 'is', null)
        .execute();
    }
  });
}
