/**
 * The webhook sender: claims due deliveries, signs and POSTs them, stores every attempt and
 * moves each delivery on (delivered, failed, or due again later).
 *
 * Not the generic outbox runner, which handles one job at a time: here many attempts are in
 * flight at once, at most `perOrigin` per receiver, so a slow or dead receiver occupies only
 * its own slots. A retry is just a delivery due later, so nothing waits behind it.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { createSleeper } from '../outbox/sleeper.js';
import type { Store } from '../store/port.js';
import type { AccountSecrets, ClaimedDelivery, DeliveryNext, DeliveryResult } from '../store/webhooks.js';
import { createWebhookHttpClient, type WebhookAttemptResult } from './http-client.js';
import { nextAttemptDelay } from './retry-policy.js';
import { webhookHeaders } from './sign.js';

/** What the runner needs, as functions (style §4): testable without a database or a network. */
export interface DeliveryOps {
  /**
   * Claims up to `limit` due deliveries, given how many this runner already holds per origin;
   * `more`: claiming again at once might find others; `backlogged`: origins that may have more
   * due than they had room for.
   */
  claim(
    held: ReadonlyMap<string, number>,
    limit: number,
    holdLimit: (origin: string) => number,
  ): Promise<{ deliveries: ClaimedDelivery[]; more: boolean; backlogged: readonly string[] }>;
  post(url: string, headers: Record<string, string>, body: string): Promise<WebhookAttemptResult>;
  record(results: DeliveryResult[]): Promise<void>;
  /** Gives back claimed deliveries that will not be attempted. */
  release(deliveries: readonly ClaimedDelivery[]): Promise<void>;
  nextDue(): Promise<number | null>;
}

export interface DeliveryRunnerOptions {
  /** Delay before each retry (config.webhookRetryMs); its length is the number of retries. */
  readonly schedule: readonly number[];
  /** Attempts in flight per origin; the HTTP client keeps as many connections per origin. */
  readonly perOrigin: number;
  /** Deliveries held per origin, in flight or waiting their turn, while its pace is unknown or slow. */
  readonly prefetchPerOrigin: number;
  /**
   * A fast origin may hold up to this many: what its slots get through in `prefetchWindowMs` at
   * its recent pace. Default: `prefetchPerOrigin` (no growth).
   */
  readonly maxPrefetchPerOrigin?: number;
  readonly prefetchWindowMs?: number;
  readonly maxInFlight: number;
  /** Deliveries held in all. */
  readonly maxHeld: number;
  /** Claimed deliveries are leased for this long... */
  readonly leaseMs: number;
  /** ...and one attempt takes at most this long: none starts unless its lease covers it. */
  readonly attemptTimeoutMs: number;
  readonly maxSleepMs: number;
  readonly now: () => number;
  readonly logger: Logger;
  readonly random?: () => number;
}

export interface DeliveryRunner {
  /** New deliveries may have been queued. */
  wake(): void;
  /** Stops claiming, gives back what was not started, and waits for attempts in flight. */
  stop(): Promise<void>;
}

/** The retry decision as data: accepted → delivered, give_up → failed, retry → later or failed. */
export function nextStep(
  result: WebhookAttemptResult,
  retryAttempts: number,
  schedule: readonly number[],
  now: number,
  random: () => number = Math.random,
): DeliveryNext {
  if (result.kind === 'accepted') return { kind: 'delivered' };
  if (result.kind === 'give_up') return { kind: 'failed' };
  const delay = nextAttemptDelay({
    attemptsMade: retryAttempts + 1,
    schedule,
    random,
    ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
  });
  return delay === null ? { kind: 'failed' } : { kind: 'retry', at: now + delay };
}

/** The current secret, and the previous one while its grace period lasts (both signatures). */
export function signingSecrets(secrets: AccountSecrets, now: number): string[] {
  const { current, previous, previousUntil } = secrets;
  return previous !== null && previousUntil !== null && previousUntil > now ? [current, previous] : [current];
}

/**
 * The sink that queues a delivery wakes the runner before its transaction commits, so a claim
 * right after a wake can miss the rows; it looks again at this pace for this long.
 */
const HINT_SETTLE_MS = 250;
const HINT_RETRY_MS = 10;
/**
 * Results wait this long to be written together. Each write is a transaction whose commit
 * costs more than its rows (about 0.8 ms on SQLite in the webhooks bench): at 10 ms it was
 * a tenth of the server's database time. The wait only delays the attempt log; the receiver
 * already has the webhook, and a crash in it means that webhook is sent again (at least once).
 */
const RECORD_EVERY_MS = 50;
const RECORD_MAX = 1000;
/** Weight of the newest attempt in an origin's average attempt time. */
const PACE_WEIGHT = 0.2;
/** Origins whose pace is remembered; past this the memory starts again (it only sizes claims). */
const PACE_ORIGINS = 10_000;

interface OriginSlots {
  inFlight: number;
  waiting: { delivery: ClaimedDelivery; claimedAt: number }[];
}

export function startDeliveryRunner(ops: DeliveryOps, options: DeliveryRunnerOptions): DeliveryRunner {
  const { logger, now } = options;
  const random = options.random ?? Math.random;
  const sleeper = createSleeper();
  const origins = new Map<string, OriginSlots>();
  const attempts = new Set<Promise<void>>();
  // Average attempt time per origin. A fast receiver's deliveries are claimed in bigger batches:
  // each claim and each record is a transaction with a fixed cost, and at a few ms per attempt
  // a holding of 64 was refilled 32 at a time, over a hundred claims a second.
  const paceMs = new Map<string, number>();
  const maxPrefetch = Math.max(options.prefetchPerOrigin, options.maxPrefetchPerOrigin ?? 0);
  const windowMs = options.prefetchWindowMs ?? 1000;
  const holdLimit = (origin: string) => {
    const pace = paceMs.get(origin);
    if (pace === undefined || maxPrefetch === options.prefetchPerOrigin) return options.prefetchPerOrigin;
    const rounds = Math.floor(windowMs / Math.max(1, pace));
    return Math.min(maxPrefetch, Math.max(options.prefetchPerOrigin, options.perOrigin * rounds));
  };
  const notePace = (origin: string, durationMs: number) => {
    const pace = paceMs.get(origin);
    if (pace === undefined && paceMs.size >= PACE_ORIGINS) paceMs.clear();
    paceMs.set(origin, pace === undefined ? durationMs : pace + (durationMs - pace) * PACE_WEIGHT);
  };
  // An origin with a backlog is topped up when its holding falls to this: claims come in
  // batches of half its prefetch instead of one per finished attempt.
  const refillAt = (origin: string) => Math.max(options.perOrigin, Math.floor(holdLimit(origin) / 2));
  const backlog = new Set<string>();
  const holding = (origin: string) => {
    const slots = origins.get(origin);
    return slots ? slots.inFlight + slots.waiting.length : 0;
  };
  const wantsRefill = () =>
    held <= options.maxHeld / 2 && [...backlog].some((origin) => holding(origin) <= refillAt(origin));
  let claiming = false;
  let inFlight = 0;
  let held = 0;
  let running = true;
  let hintedAt = Number.NEGATIVE_INFINITY;

  // Results are written in batches: one transaction per attempt would cap the rate at the
  // database's commit rate.
  let buffer: DeliveryResult[] = [];
  let recording = Promise.resolve();
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (flushTimer !== null) clearTimeout(flushTimer);
    flushTimer = null;
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    recording = recording.then(() => record(batch));
  };
  const record = async (batch: DeliveryResult[]) => {
    // The receiver has these; keep trying to write them down, or their leases run out and they
    // are sent again. Only a stop gives up, leaving exactly that at-least-once window.
    for (let delay = 100, tries = 1; ; delay = Math.min(delay * 2, 5000), tries++) {
      try {
        await ops.record(batch);
        return;
      } catch (error) {
        logger.error({ err: error, count: batch.length }, 'recording webhook attempts failed; retrying');
        if (!running && tries >= 3) return;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };

  const attempt = async (delivery: ClaimedDelivery) => {
    const at = now();
    let result: WebhookAttemptResult;
    try {
      const headers = webhookHeaders(
        delivery.webhookId,
        Math.floor(at / 1000),
        delivery.payload,
        signingSecrets(delivery.secrets, at),
      );
      result = await ops.post(delivery.url, headers, delivery.payload);
    } catch (error) {
      // The client never throws by contract, and signing throws only for a secret edited by hand
      // into something unusable; either way the attempt still gets its row.
      const message = error instanceof Error ? error.message : String(error);
      result = { kind: 'retry', status: null, durationMs: now() - at, responseExcerpt: '', error: message };
    }
    notePace(delivery.origin, result.durationMs);
    buffer.push({
      delivery,
      attempt: {
        attemptedAt: at,
        durationMs: result.durationMs,
        status: result.status,
        error: result.error ?? null,
        responseExcerpt: result.responseExcerpt,
      },
      next: nextStep(result, delivery.retryAttempts, options.schedule, now(), random),
    });
    if (buffer.length >= RECORD_MAX) flush();
    else flushTimer ??= setTimeout(flush, RECORD_EVERY_MS);
  };

  const expired: ClaimedDelivery[] = [];
  const pump = () => {
    for (const [origin, slots] of origins) {
      while (
        running &&
        inFlight < options.maxInFlight &&
        slots.inFlight < options.perOrigin &&
        slots.waiting.length > 0
      ) {
        const { delivery, claimedAt } = slots.waiting.shift()!;
        if (now() + options.attemptTimeoutMs > claimedAt + options.leaseMs) {
          // Waited too long for a slot: its lease could run out mid-attempt and another worker
          // send it too. Give it back instead.
          expired.push(delivery);
          release(origin, slots);
          continue;
        }
        slots.inFlight += 1;
        inFlight += 1;
        const pending = attempt(delivery).finally(() => {
          slots.inFlight -= 1;
          inFlight -= 1;
          attempts.delete(pending);
          release(origin, slots);
          pump();
        });
        attempts.add(pending);
      }
    }
    if (expired.length > 0) {
      const back = expired.splice(0);
      ops
        .release(back)
        .catch((error: unknown) => logger.error({ err: error }, 'releasing webhook leases failed'));
    }
  };
  /** One delivery of `origin` is no longer held. */
  const release = (origin: string, slots: OriginSlots) => {
    held -= 1;
    const left = slots.inFlight + slots.waiting.length;
    if (left === 0) origins.delete(origin);
    // While a claim runs, the loop checks for itself when it returns.
    if (!claiming && left <= refillAt(origin) && backlog.has(origin) && held <= options.maxHeld / 2) {
      sleeper.wake();
    }
  };

  const loop = (async () => {
    while (running) {
      try {
        const room = options.maxHeld - held;
        // The lease starts when the claim runs, not when its answer arrives.
        const claimedAt = now();
        claiming = true;
        const {
          deliveries: claimed,
          more,
          backlogged,
        } = room > 0
          ? await ops.claim(
              new Map([...origins].map(([o, s]) => [o, s.inFlight + s.waiting.length])),
              room,
              holdLimit,
            )
          : { deliveries: [], more: false, backlogged: [] };
        claiming = false;
        // A claim that saw every origin knows every backlog; a partial one only adds to them.
        if (!more && room > 0) backlog.clear();
        for (const origin of backlogged) backlog.add(origin);
        for (const delivery of claimed) {
          let slots = origins.get(delivery.origin);
          if (!slots) origins.set(delivery.origin, (slots = { inFlight: 0, waiting: [] }));
          slots.waiting.push({ delivery, claimedAt });
          held += 1;
        }
        pump();
        // Otherwise every origin with due work is held to its limit, or has nothing more due:
        // a finishing attempt, new work or the next due time wakes the loop.
        if (more || wantsRefill() || !running) continue;
        if (now() - hintedAt < HINT_SETTLE_MS) {
          await sleeper.sleep(HINT_RETRY_MS);
          continue;
        }
        const next = room > 0 ? await ops.nextDue() : null;
        const t = now();
        // Due now but nothing claimed: every origin with work is at its limit, and a finishing
        // attempt will wake us.
        const wait = next === null || next <= t ? options.maxSleepMs : Math.min(options.maxSleepMs, next - t);
        if (running) await sleeper.sleep(Math.max(1, wait));
      } catch (error) {
        claiming = false;
        logger.error({ err: error }, 'webhook runner error; backing off');
        if (running) await sleeper.sleep(1000);
      }
    }
  })();

  return {
    wake() {
      hintedAt = now();
      sleeper.wake();
    },
    async stop() {
      running = false;
      sleeper.wake();
      await loop;
      const unstarted = [...origins.values()].flatMap((s) => s.waiting.splice(0).map((w) => w.delivery));
      held -= unstarted.length;
      if (unstarted.length > 0) {
        await ops
          .release(unstarted)
          .catch((error: unknown) => logger.error({ err: error }, 'releasing webhook leases failed'));
      }
      await Promise.all(attempts);
      flush();
      await recording;
    },
  };
}

export interface WebhookRunnerDeps {
  readonly store: Store;
  readonly config: Pick<Config, 'webhookRetryMs' | 'webhookTimeoutMs' | 'webhookAllowPrivate'>;
  readonly logger: Logger;
  readonly now: () => number;
  /** Stable name of this node; a restarted node takes back what its previous run held. */
  readonly workerId?: string;
  /** Attempts in flight per receiver origin; default 8. */
  readonly perOrigin?: number;
}

const DEFAULT_PER_ORIGIN = 8;
/**
 * Deliveries held per origin, as a multiple of its slots: enough that a fast receiver's slots
 * never wait on a claim, and that one claim takes a batch worth its transaction.
 */
const PREFETCH_FACTOR = 8;
/**
 * A receiver that answers fast may have this many times its slots held, up to what they get
 * through in PREFETCH_WINDOW_MS: far inside the lease, so no held delivery waits it out.
 */
const MAX_PREFETCH_FACTOR = 64;
const PREFETCH_WINDOW_MS = 1000;

/** The composition root's entry: the runner over the store and a real HTTP client. */
export async function startWebhookRunner(deps: WebhookRunnerDeps): Promise<DeliveryRunner> {
  const { store, config, now } = deps;
  const log = deps.logger.child({ component: 'webhooks' });
  const perOrigin = deps.perOrigin ?? DEFAULT_PER_ORIGIN;
  const prefetchPerOrigin = perOrigin * PREFETCH_FACTOR;
  // A held delivery may wait for PREFETCH_FACTOR rounds of attempts before its own ends.
  const leaseMs = config.webhookTimeoutMs * (PREFETCH_FACTOR + 1) + 30_000;
  const worker = `${deps.workerId ?? `${hostname()}-${process.pid}`}/webhooks`;
  const http = createWebhookHttpClient({
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivate,
    maxConnectionsPerOrigin: perOrigin,
    logger: log,
  });
  const freed = await store.webhooks.releaseLeases(worker, now());
  if (freed > 0)
    log.warn({ deliveries: freed }, 'took back webhook deliveries this node held when it stopped');
  let cursor: string | null = null;
  const runner = startDeliveryRunner(
    {
      claim: async (held, limit, holdLimit) => {
        const result = await store.webhooks.claim({
          worker,
          now: now(),
          leaseMs,
          limit,
          perOrigin: holdLimit,
          held,
          after: cursor,
        });
        cursor = result.cursor;
        return result;
      },
      post: (url, headers, body) => http.post(url, headers, body),
      record: (results) => store.webhooks.record(worker, results, now()),
      release: async (deliveries) => {
        await store.webhooks.release(
          worker,
          deliveries.map((d) => d.deliveryId),
          now(),
        );
      },
      nextDue: () => store.webhooks.nextDue(),
    },
    {
      schedule: config.webhookRetryMs,
      perOrigin,
      prefetchPerOrigin,
      maxPrefetchPerOrigin: perOrigin * MAX_PREFETCH_FACTOR,
      prefetchWindowMs: PREFETCH_WINDOW_MS,
      maxInFlight: 256,
      maxHeld: 2048,
      leaseMs,
      attemptTimeoutMs: config.webhookTimeoutMs,
      maxSleepMs: 1000,
      now,
      logger: log,
    },
  );
  return {
    wake: () => runner.wake(),
    async stop() {
      await runner.stop();
      await http.close();
    },
  };
}
