/**
 * The webhook sender: deliveries this node holds, signed and POSTed, each attempt's outcome
 * kept for the engine to record in its next turn (src/engine/).
 *
 * Isolation is decided here, in memory: at most `perOrigin` attempts in flight per receiver
 * origin (its connections), at most `perAccount` per account, accounts served in turn, and a
 * circuit breaker per origin: after `failures` failed attempts in a row (no answer, 429, 5xx)
 * the origin is paused with a growing backoff, its waiting deliveries go back to the queue
 * unattempted (their retry schedule unspent) and none of its deliveries is taken on until a
 * probe may go. So 40 hanging receivers of one account hold at most its share of the slots.
 */
import type { Logger } from 'pino';
import type { AccountSecrets, ClaimedDelivery, DeliveryNext, DeliveryResult } from '../store/webhooks.js';
import type { WebhookAttemptResult, WebhookHttpClient } from './http-client.js';
import { nextAttemptDelay } from './retry-policy.js';
import { webhookHeaders } from './sign.js';

export interface SenderLimits {
  /** Attempts in flight per receiver origin; the HTTP client keeps as many connections. */
  readonly perOrigin: number;
  /** Attempts in flight per account. */
  readonly perAccount: number;
  /** Attempts in flight in all. */
  readonly maxInFlight: number;
  /** Deliveries held in all (waiting or in flight): what a claim may top up to. */
  readonly maxHeld: number;
  /** Deliveries held per origin. */
  readonly maxHeldPerOrigin: number;
}

export interface BreakerPolicy {
  /** Failed attempts in a row that pause an origin. */
  readonly failures: number;
  /** First pause; each failed probe doubles it up to maxOpenMs. */
  readonly openMs: number;
  readonly maxOpenMs: number;
}

/**
 * An origin may have as many attempts in flight as the HTTP client carries to it at once (8
 * connections, 8 pipelined on each): the attempts of a turn then share writes, and an answer
 * read late because the engine's thread was in a transaction does not idle the origin. At 8 in
 * flight (one per connection), the side-by-side harness's receiver got 130 reports/s while
 * the engine was busy. An account may use two origins' worth; accounts share 1,024.
 */
export const DEFAULT_LIMITS: SenderLimits = {
  perOrigin: 64,
  perAccount: 128,
  maxInFlight: 1_024,
  maxHeld: 10_000,
  maxHeldPerOrigin: 2_000,
};

export const DEFAULT_BREAKER: BreakerPolicy = { failures: 5, openMs: 5_000, maxOpenMs: 300_000 };

export interface EndpointState {
  readonly origin: string;
  /** closed: sending; open: paused until `reopensAt`; probing: one attempt decides. */
  readonly circuit: 'closed' | 'open' | 'probing';
  readonly consecutiveFailures: number;
  readonly reopensAt: number | null;
  readonly inFlight: number;
  readonly waiting: number;
}

export interface SenderOptions {
  readonly http: Pick<WebhookHttpClient, 'post'>;
  /** Delay before each retry (config.webhookRetryMs); its length is the number of retries. */
  readonly schedule: readonly number[];
  readonly limits?: SenderLimits;
  readonly breaker?: BreakerPolicy;
  readonly now: () => number;
  readonly logger: Logger;
  /** Outcomes are waiting to be recorded. */
  readonly onResults: () => void;
  readonly random?: () => number;
}

export interface WebhookSender {
  /** How many more deliveries it takes on. */
  room(): number;
  /** Whether deliveries for this origin are taken on now (its circuit is not open). */
  accepts(origin: string): boolean;
  /** Deliveries held per origin, and the most an origin may hold: what a claim tops up. */
  heldByOrigin(): ReadonlyMap<string, number>;
  holdLimit(origin: string): number;
  take(deliveries: readonly ClaimedDelivery[]): void;
  /** Outcomes since the last call (the oldest `limit`), for the engine to record. */
  drain(limit?: number): DeliveryResult[];
  /** Outcomes whose recording failed: kept for the next turn. */
  restore(results: readonly DeliveryResult[]): void;
  endpoints(): EndpointState[];
  /** Starts nothing more, hands back what waits, and resolves when attempts in flight end. */
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

/** An answer that says the endpoint is unwell: nothing, too many requests, or a server error. */
function endpointFailed(result: WebhookAttemptResult): boolean {
  return result.status === null ? result.kind === 'retry' : result.status === 429 || result.status >= 500;
}

interface Origin {
  inFlight: number;
  held: number;
  failures: number;
  circuit: 'closed' | 'open' | 'probing';
  reopensAt: number;
  openMs: number;
}

/** An account's waiting deliveries, by origin, and its turn among origins. */
interface Account {
  inFlight: number;
  queues: Map<string, ClaimedDelivery[]>;
  origins: string[];
  next: number;
}

export function createWebhookSender(options: SenderOptions): WebhookSender {
  const { http, now, logger } = options;
  const limits = options.limits ?? DEFAULT_LIMITS;
  const breaker = options.breaker ?? DEFAULT_BREAKER;
  const random = options.random ?? Math.random;
  const origins = new Map<string, Origin>();
  const accounts = new Map<number, Account>();
  /** Accounts with waiting deliveries, served in turn. */
  let ring: number[] = [];
  let turn = 0;
  let held = 0;
  let inFlight = 0;
  let running = true;
  let results: DeliveryResult[] = [];
  const attempts = new Set<Promise<void>>();
  let pumping = false;

  const originOf = (name: string): Origin => {
    let o = origins.get(name);
    if (!o) {
      o = { inFlight: 0, held: 0, failures: 0, circuit: 'closed', reopensAt: 0, openMs: breaker.openMs };
      origins.set(name, o);
    }
    return o;
  };

  const emit = (result: DeliveryResult) => {
    results.push(result);
    options.onResults();
  };

  const release = (delivery: ClaimedDelivery) => {
    const o = originOf(delivery.origin);
    o.held -= 1;
    held -= 1;
    emit({ delivery, attempt: null, next: { kind: 'release' } });
  };

  /** The origin may start an attempt now (a paused one lets exactly one probe through). */
  const mayStart = (o: Origin, at: number): boolean => {
    if (o.circuit === 'closed') return o.inFlight < limits.perOrigin;
    if (o.circuit === 'open' && at >= o.reopensAt && o.inFlight === 0) {
      o.circuit = 'probing';
      return true;
    }
    return false;
  };

  const pauseOrigin = (name: string, o: Origin, at: number) => {
    o.circuit = 'open';
    o.reopensAt = at + o.openMs;
    logger.warn(
      { origin: name, failures: o.failures, pausedMs: o.openMs },
      'webhook endpoint keeps failing; paused',
    );
    o.openMs = Math.min(o.openMs * 2, breaker.maxOpenMs);
    // What waits for it goes back to the queue unattempted, for when it is back.
    for (const account of accounts.values()) {
      const queue = account.queues.get(name);
      if (!queue) continue;
      account.queues.delete(name);
      account.origins = account.origins.filter((x) => x !== name);
      for (const d of queue) release(d);
    }
    ring = ring.filter((id) => accounts.get(id)!.queues.size > 0);
  };

  const noteOutcome = (name: string, o: Origin, result: WebhookAttemptResult, at: number) => {
    if (!endpointFailed(result)) {
      if (o.circuit !== 'closed') logger.info({ origin: name }, 'webhook endpoint answers again; resumed');
      o.failures = 0;
      o.circuit = 'closed';
      o.openMs = breaker.openMs;
      return;
    }
    o.failures += 1;
    if (o.circuit === 'probing' || (o.circuit === 'closed' && o.failures >= breaker.failures)) {
      pauseOrigin(name, o, at);
    }
  };

  const attempt = async (delivery: ClaimedDelivery, account: Account, o: Origin) => {
    const at = now();
    let result: WebhookAttemptResult;
    try {
      const headers = webhookHeaders(
        delivery.webhookId,
        Math.floor(at / 1000),
        delivery.payload,
        signingSecrets(delivery.secrets, at),
      );
      result = await http.post(delivery.url, headers, delivery.payload);
    } catch (error) {
      // The client never throws by contract, and signing throws only for a secret edited by hand
      // into something unusable; either way the attempt still gets its row.
      const message = error instanceof Error ? error.message : String(error);
      result = { kind: 'retry', status: null, durationMs: now() - at, responseExcerpt: '', error: message };
    }
    o.inFlight -= 1;
    o.held -= 1;
    account.inFlight -= 1;
    inFlight -= 1;
    held -= 1;
    const done = now();
    noteOutcome(delivery.origin, o, result, done);
    emit({
      delivery,
      attempt: {
        attemptedAt: at,
        durationMs: result.durationMs,
        status: result.status,
        error: result.error ?? null,
        responseExcerpt: result.responseExcerpt,
      },
      next: nextStep(result, delivery.retryAttempts, options.schedule, done, random),
    });
  };

  /** Starts attempts while there are slots: accounts in turn, each its next origin with room. */
  const pump = () => {
    if (pumping) return;
    pumping = true;
    try {
      const at = now();
      let blocked = 0;
      while (running && inFlight < limits.maxInFlight && ring.length > 0 && blocked < ring.length) {
        const id = ring[turn % ring.length]!;
        turn = (turn + 1) % Math.max(1, ring.length);
        const account = accounts.get(id)!;
        let started = false;
        if (account.inFlight < limits.perAccount) {
          for (let k = 0; k < account.origins.length && !started; k++) {
            const index = (account.next + k) % account.origins.length;
            const name = account.origins[index]!;
            const o = originOf(name);
            if (!mayStart(o, at)) continue;
            const queue = account.queues.get(name)!;
            const delivery = queue.shift()!;
            if (queue.length === 0) {
              account.queues.delete(name);
              account.origins.splice(index, 1);
              account.next = account.origins.length === 0 ? 0 : index % account.origins.length;
            } else {
              account.next = (index + 1) % account.origins.length;
            }
            o.inFlight += 1;
            account.inFlight += 1;
            inFlight += 1;
            started = true;
            const pending = attempt(delivery, account, o).finally(() => {
              attempts.delete(pending);
              pump();
            });
            attempts.add(pending);
          }
        }
        if (started) blocked = 0;
        else blocked += 1;
        if (account.queues.size === 0) {
          ring = ring.filter((x) => x !== id);
          if (account.inFlight === 0) accounts.delete(id);
        }
      }
    } finally {
      pumping = false;
    }
  };

  // A paused origin's probe is due at its reopening time, even if nothing else happens.
  const probeTimer = setInterval(() => {
    if (ring.length > 0) pump();
  }, 250);
  probeTimer.unref();

  return {
    room: () => (running ? Math.max(0, limits.maxHeld - held) : 0),
    accepts(origin) {
      const o = origins.get(origin);
      return running && (o === undefined || o.circuit === 'closed');
    },
    heldByOrigin: () =>
      new Map([...origins].filter(([, o]) => o.held > 0).map(([name, o]) => [name, o.held])),
    holdLimit(origin) {
      const o = origins.get(origin);
      if (o && o.circuit === 'open') return now() >= o.reopensAt ? 1 : 0;
      if (o && o.circuit === 'probing') return 1;
      return limits.maxHeldPerOrigin;
    },
    take(deliveries) {
      for (const delivery of deliveries) {
        const o = originOf(delivery.origin);
        o.held += 1;
        held += 1;
        if (!running || (o.circuit === 'open' && now() < o.reopensAt)) {
          release(delivery);
          continue;
        }
        let account = accounts.get(delivery.accountId);
        if (!account) {
          account = { inFlight: 0, queues: new Map(), origins: [], next: 0 };
          accounts.set(delivery.accountId, account);
        }
        let queue = account.queues.get(delivery.origin);
        if (!queue) {
          queue = [];
          account.queues.set(delivery.origin, queue);
          account.origins.push(delivery.origin);
          if (account.queues.size === 1) ring.push(delivery.accountId);
        }
        queue.push(delivery);
      }
      pump();
    },
    drain(limit = Number.POSITIVE_INFINITY) {
      const out = limit >= results.length ? results : results.slice(0, limit);
      results = limit >= results.length ? [] : results.slice(limit);
      // Origins without anything held are forgotten unless they are paused (the pause stays).
      for (const [name, o] of origins) if (o.held === 0 && o.circuit === 'closed') origins.delete(name);
      return out;
    },
    restore(back) {
      results = [...back, ...results];
    },
    endpoints: () =>
      [...origins].map(([origin, o]) => {
        let waiting = 0;
        for (const account of accounts.values()) waiting += account.queues.get(origin)?.length ?? 0;
        return {
          origin,
          circuit: o.circuit,
          consecutiveFailures: o.failures,
          reopensAt: o.circuit === 'open' ? o.reopensAt : null,
          inFlight: o.inFlight,
          waiting,
        };
      }),
    async stop() {
      running = false;
      clearInterval(probeTimer);
      for (const account of accounts.values()) {
        for (const queue of account.queues.values()) for (const d of queue) release(d);
        account.queues.clear();
        account.origins = [];
      }
      ring = [];
      await Promise.all(attempts);
    },
  };
}
