/** The webhook part of the storage port, over the files of this folder. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import {
  getDeliveryRecord,
  listDeliveryRecords,
  type DeliveryQuery,
  type DeliveryRecord,
} from './listing.js';
import { replayDeliveryRecord, type ReplayOutcome } from './replay.js';

/**
 * What the admin API and CLI need of the webhook queue. Claiming and recording attempts are
 * the engine's, inside its transactions (src/store/engine-store.ts).
 */
export interface WebhookStore {
  list(query: DeliveryQuery): Promise<{ rows: DeliveryRecord[]; more: boolean }>;
  get(id: number): Promise<DeliveryRecord | null>;
  /** Queues a failed delivery again, with the same webhook-id and body and a fresh schedule. */
  replay(id: number, now: number): Promise<ReplayOutcome>;
}

export function webhookStore(db: Kysely<Database>): WebhookStore {
  return {
    list: (query) => listDeliveryRecords(db, query),
    get: (id) => getDeliveryRecord(db, id),
    replay: (id, now) => replayDeliveryRecord(db, id, now),
  };
}
