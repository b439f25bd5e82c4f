/** The webhook part of the storage port, over the files of this folder. */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import { claimDeliveries, type ClaimRequest, type ClaimResult } from './claim.js';
import { freeLeases, nextDueDelivery } from './leases.js';
import {
  getDeliveryRecord,
  listDeliveryRecords,
  type DeliveryQuery,
  type DeliveryRecord,
} from './listing.js';
import { recordAttempts, type DeliveryResult } from './record.js';
import { replayDeliveryRecord, type ReplayOutcome } from './replay.js';

/** What the delivery runner and the admin API need from storage. */
export interface WebhookStore {
  /**
   * Claims due deliveries with a lease: origin by origin, at most `perOrigin` held per origin,
   * so the backlog of one receiver never fills the batch.
   */
  claim(request: ClaimRequest): Promise<ClaimResult>;
  /** Stores the attempts and moves each delivery on, only while `worker` holds its lease. */
  record(worker: string, results: readonly DeliveryResult[], now: number): Promise<void>;
  /** Gives back claimed deliveries that were never attempted (a stopping runner's queue). */
  release(worker: string, deliveryIds: readonly number[], now: number): Promise<number>;
  /** Frees everything a previous run of this same worker still held when it died. */
  releaseLeases(worker: string, now: number): Promise<number>;
  /** When a pending delivery is next due (or an in-flight one's lease runs out); null if none. */
  nextDue(): Promise<number | null>;
  list(query: DeliveryQuery): Promise<{ rows: DeliveryRecord[]; more: boolean }>;
  get(id: number): Promise<DeliveryRecord | null>;
  /** Queues a failed delivery again, with the same webhook-id and body and a fresh schedule. */
  replay(id: number, now: number): Promise<ReplayOutcome>;
}

export function webhookStore(db: Kysely<Database>, dialect: Dialect): WebhookStore {
  return {
    claim: (request) => claimDeliveries(db, dialect, request),
    record: (worker, results, now) => recordAttempts(db, worker, results, now),
    release: (worker, deliveryIds, now) => freeLeases(db, worker, deliveryIds, now),
    releaseLeases: (worker, now) => freeLeases(db, worker, null, now),
    nextDue: () => nextDueDelivery(db),
    list: (query) => listDeliveryRecords(db, query),
    get: (id) => getDeliveryRecord(db, id),
    replay: (id, now) => replayDeliveryRecord(db, id, now),
  };
}
