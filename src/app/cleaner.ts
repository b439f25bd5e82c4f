import type { Logger } from 'pino';
import { IDEMPOTENCY_TTL_MS } from '../store/idempotency.js';
import type { Store } from '../store/port.js';

/** What one pass deleted. */
export interface CleanerPass {
  readonly messages: number;
  readonly inbound: number;
  readonly deliveries: number;
  readonly idempotencyKeys: number;
}

export interface Cleaner {
  /** One full pass now (tests, and the loop itself); a pass already running is joined. */
  runOnce(): Promise<CleanerPass>;
  stop(): Promise<void>;
}

export interface CleanerOptions {
  readonly store: Store;
  /** SMSGW_RETENTION; null: only expired idempotency keys are deleted. */
  readonly retentionMs: number | null;
  readonly now: () => number;
  readonly logger: Logger;
  /** Between passes. */
  readonly intervalMs?: number;
}

/** Rows per batch: each batch is one transaction, short enough not to hold up sends or requests. */
const BATCH = { messages: 100, recipients: 1_000, inbound: 500, deliveries: 500, keys: 500 } as const;
/** After each batch the cleaner rests twice as long as the batch took: at most a third of the writer. */
const REST_FACTOR = 2;
const MIN_REST_MS = 10;
const PROGRESS_EVERY_MS = 10_000;

/**
 * The background cleaner of decisions §14–§15: expired idempotency keys always, and with
 * SMSGW_RETENTION set, finished messages, inbound messages and webhook deliveries older than
 * it. Each kind is deleted oldest first in small batches with a rest after each, so sends and
 * requests keep their turn at the database; progress goes to the log.
 */
export function startCleaner(options: CleanerOptions): Cleaner {
  const { store, retentionMs, now, logger } = options;
  const log = logger.child({ component: 'cleaner' });
  const intervalMs = options.intervalMs ?? 60_000;
  let stopped = false;
  let running: Promise<CleanerPass> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let wakeRest: (() => void) | null = null;

  const rest = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wakeRest = null;
        resolve();
      }
      wakeRest = done;
    });

  /** Runs `batch` until it deletes less than a full batch (or the cleaner stops); returns the total. */
  const drain = async (what: string, size: number, batch: () => Promise<number>) => {
    let total = 0;
    let lastReport = Date.now();
    while (!stopped) {
      const started = Date.now();
      const deleted = await batch();
      total += deleted;
      if (deleted < size) break;
      if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
        log.info({ what, deleted: total }, 'retention: still deleting');
        lastReport = Date.now();
      }
      await rest(Math.max(MIN_REST_MS, (Date.now() - started) * REST_FACTOR));
    }
    return total;
  };

  const pass = async (): Promise<CleanerPass> => {
    const started = Date.now();
    const at = now();
    const idempotencyKeys = await drain('idempotency keys', BATCH.keys, () =>
      store.idempotency.deleteExpired(at - IDEMPOTENCY_TTL_MS, BATCH.keys),
    );
    let result: CleanerPass = { messages: 0, inbound: 0, deliveries: 0, idempotencyKeys };
    if (retentionMs !== null) {
      const before = at - retentionMs;
      const messages = await drain('messages', BATCH.messages, () =>
        store.retention.deleteMessages(before, BATCH.messages, BATCH.recipients),
      );
      const inbound = await drain('inbound messages', BATCH.inbound, () =>
        store.retention.deleteInbound(before, BATCH.inbound),
      );
      const webhooks = await drain('webhook deliveries', BATCH.deliveries, () =>
        store.retention.deleteDeliveries(before, BATCH.deliveries),
      );
      // deliver_sm for SMPP customers count as deliveries too.
      const smpp = await drain('smpp deliveries', BATCH.deliveries, () =>
        store.retention.deleteSmppDeliveries(before, BATCH.deliveries),
      );
      const deliveries = webhooks + smpp;
      result = { messages, inbound, deliveries, idempotencyKeys };
    }
    if (Object.values(result).some((n) => n > 0)) {
      log.info({ ...result, ms: Date.now() - started }, 'retention: deleted');
    }
    return result;
  };

  const runOnce = () => {
    running ??= pass().finally(() => (running = null));
    return running;
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      runOnce()
        .catch((error: unknown) => log.error({ err: error }, 'retention: a pass failed; trying again later'))
        .finally(() => schedule(intervalMs));
    }, ms);
    timer.unref();
  };
  // The first pass waits a little, so it does not compete with start-up.
  schedule(Math.min(intervalMs, 10_000));

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wakeRest?.();
      await running?.catch(() => undefined);
    },
  };
}
