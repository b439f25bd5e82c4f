/**
 * The sending engine of one node: message jobs (release, expire) → send work → carrier
 * connector → receipts and inbound messages → status changes → webhooks, all through the
 * database, each stage recorded and claimed in the one transaction of a turn (./loop.ts).
 */
import type { Logger } from 'pino';
import type { CarrierConnector } from '../carriers/port.js';
import type { LinkState } from '../carriers/routing/router.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { Config } from '../config/config.js';
import type { RetryDelay, SendWork } from '../store/engine-store.js';
import type { Store } from '../store/port.js';
import type { HeldDelivery } from '../store/webhooks.js';
import { createWebhookHttpClient, type WebhookHttpClient } from '../webhooks/http-client.js';
import {
  createWebhookSender,
  DEFAULT_LIMITS,
  type BreakerPolicy,
  type EndpointState,
  type SenderLimits,
} from '../webhooks/sender.js';
import { createCarrierEventStage } from './carrier-events.js';
import { startLoop } from './loop.js';
import { createMessageJobStage } from './message-jobs.js';
import { joinCluster } from './node.js';
import { createRateLimiter } from './rate-limiter.js';
import { createSendRoom, type SendRoom } from './send-room.js';
import { sendRetryDelay } from './retry-policy.js';
import { createSendStage } from './sends.js';
import { createWebhookStage } from './webhooks.js';

/**
 * A carrier link as the engine drives it: the port, how many submits it can take at once, and
 * the state of each SMSC link behind it (the router's; a single link without it is one bind).
 */
export type EngineConnector = CarrierConnector & {
  capacity?(): number;
  states?(): Record<string, LinkState>;
};

export interface NodeIdentity {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
}

export interface EngineOptions {
  readonly store: Store;
  readonly connector: EngineConnector;
  readonly config: Config;
  readonly logger: Logger;
  readonly now: () => number;
  readonly node: NodeIdentity;
  /** Messages per second to the connector; 0 = as fast as it accepts. */
  readonly throughput?: number;
  /** Backoff after temporary carrier failures; default: SEND_RETRY_SCHEDULE_MS. */
  readonly retryDelay?: RetryDelay;
  /** Default: a client with the configured timeout and address guard. */
  readonly http?: WebhookHttpClient;
  readonly webhookLimits?: SenderLimits;
  readonly breaker?: BreakerPolicy;
  /** Another node's work became this node's (its binds are free too). */
  readonly onTakenOver?: () => void;
  /** Room for submits, shared with the API of this node; default: the engine's own. */
  readonly room?: SendRoom;
  /** Room for the webhooks the API of this node queues held, given by the engine. */
  readonly deliveryRoom?: SendRoom;
  /** Where the engine counts what it does (decisions §12). */
  readonly metrics?: EngineMetrics;
}

/** What may have become due: a wake-up names it, or everything. */
export type WakeKind = 'sends' | 'jobs' | 'webhooks';

export interface Engine {
  wake(kinds?: readonly WakeKind[]): void;
  /** Recipients the API of this node accepted held by it, room taken: submitted at once. */
  adopt(work: readonly SendWork[]): void;
  /** Webhooks the API of this node queued held by it, room taken: sent from the next turn. */
  adoptDeliveries(held: readonly HeldDelivery[]): void;
  /** Each webhook endpoint this node is sending to or has paused. */
  webhookEndpoints(): EndpointState[];
  /** Sets the connector gauges (binds, in flight) from the links as they are now. */
  observeConnectors(): void;
  /** Stops claiming, finishes and records work in flight, stops the connector, leaves. */
  stop(): Promise<void>;
  /** Settles if the node loses its lease: its work may already be another node's. */
  readonly failed: Promise<Error>;
}

/** Outstanding submits when the connector does not say (the simulator, unthrottled). */
const DEFAULT_CAPACITY = 2_000;
const MAX_CLAIM = 2_000;
const MAX_SLEEP_MS = 2_000;
const STOP_FLUSH_MS = 10_000;

export async function startEngine(options: EngineOptions): Promise<Engine> {
  const { store, connector, config, now, node } = options;
  const logger = options.logger.child({ component: 'engine' });
  let fail: (error: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => (fail = resolve));

  const lease = await joinCluster({
    store: store.engine,
    id: node.id,
    host: node.host,
    pid: node.pid,
    ttlMs: config.leaseTtlMs,
    onInterrupted: config.onInterrupted,
    now,
    logger,
    onTakenOver: () => {
      sends.wake();
      webhookStage.wake();
      loop.request();
      options.onTakenOver?.();
    },
    onLost: (reason) => {
      logger.fatal({ reason }, 'this node lost its lease; stopping');
      fail(new Error(`lease lost: ${reason}`));
    },
  });

  const http =
    options.http ??
    createWebhookHttpClient({
      timeoutMs: config.webhookTimeoutMs,
      allowPrivate: config.webhookAllowPrivate,
      logger: logger.child({ component: 'webhooks' }),
    });
  const sender = createWebhookSender({
    http,
    schedule: config.webhookRetryMs,
    ...(options.webhookLimits && { limits: options.webhookLimits }),
    ...(options.breaker && { breaker: options.breaker }),
    now,
    logger: logger.child({ component: 'webhooks' }),
    onResults: () => loop.request(),
  });
  const { metrics } = options;
  const holdRoom = { reserved: 0 };
  const webhookStage = createWebhookStage({
    node: node.id,
    sender,
    room: holdRoom,
    ...(metrics && { metrics }),
    ...(options.deliveryRoom && { adopted: options.deliveryRoom }),
  });
  const throughput = options.throughput ?? 0;
  const sends = createSendStage({
    node: node.id,
    connector,
    limiter: createRateLimiter(throughput),
    retryDelay: options.retryDelay ?? sendRetryDelay,
    capacity: () =>
      connector.capacity?.() ?? (throughput > 0 ? Math.max(10, Math.ceil(throughput / 5)) : DEFAULT_CAPACITY),
    room: options.room ?? createSendRoom(),
    maxClaim: MAX_CLAIM,
    now,
    logger,
    onOutcome: () => loop.request(),
    onRecorded: () => {
      if (carrierEvents.waiting > 0) eventLoop.request();
    },
    ...(metrics && { metrics }),
  });
  /**
   * On PostgreSQL what the carrier sends (receipts, inbound) is recorded by a loop of its own, on
   * a connection of its own, while the main loop records submits and claims: one loop's
   * transaction waited for the other's, so the engine's thread and its connection each stood
   * idle for most of a turn. SQLite has one writer; there both stay in one loop.
   */
  const concurrent = store.engine.concurrentTurns;
  const carrierEvents = createCarrierEventStage({
    connector: connector.name,
    onEvent: () => eventLoop.request(),
    ...(concurrent && { unrecorded: (id: string) => sends.unrecorded(id) }),
    ...(metrics && { metrics }),
  });
  const jobs = createMessageJobStage({
    connector: connector.name,
    receiptTimeoutMs: config.receiptTimeoutMs,
    onReleased: () => sends.wake(),
  });
  // Order matters within a turn: submits are recorded before receipts (one loop, SQLite), so a
  // receipt that came in just after its submit's answer finds its part; webhooks claim last,
  // after every status change of the turn has queued its own.
  const stages = concurrent ? [sends, jobs, webhookStage] : [sends, carrierEvents, jobs, webhookStage];
  // The webhooks the event loop's status changes queue, born held by this node like the main loop's.
  const bornWebhooks = createWebhookStage({ node: node.id, sender, room: holdRoom, claims: false });
  const loop = startLoop({
    store: store.engine,
    stages,
    hold: () => webhookStage.hold(),
    nextDue: async () => {
      const due = await store.engine.nextDue(now());
      const times = [due.sends, due.jobs, due.webhooks, jobs.nextSweepAt()].filter(
        (t): t is number => t !== null,
      );
      return times.length === 0 ? null : Math.min(...times);
    },
    onDue: () => {
      sends.wake();
      jobs.wake();
      webhookStage.wake();
    },
    maxSleepMs: MAX_SLEEP_MS,
    now,
    logger,
  });

  const eventLoop = !concurrent
    ? loop
    : startLoop({
        store: store.engine,
        stages: [carrierEvents, bornWebhooks],
        hold: () => bornWebhooks.hold(),
        // Only the carrier brings it work, and wakes it.
        nextDue: () => Promise.resolve(null),
        onDue: () => {},
        maxSleepMs: MAX_SLEEP_MS,
        now,
        logger,
      });
  const loops = concurrent ? [loop, eventLoop] : [loop];

  try {
    await connector.start(carrierEvents.events);
  } catch (error) {
    for (const l of loops) await l.stop();
    await sender.stop();
    await lease.leave();
    throw error;
  }
  loop.request();
  // Webhooks the API may queue held by this node and hand over at once (the submitted reports of
  // the messages it accepts), beyond the sender's own room: a claim would otherwise have to find
  // each again, one more UPDATE of its row (side-by-side harness, max-c64: 3.5 % of the engine
  // thread in the claim, and a wake-up and an origin walk per acceptance). As many as the
  // sender holds of its own (about 10 MB at most): 2,000 ran out within a second in max-c64,
  // where reports wait for the receiver's 64 connections. The rest wait for a claim as before,
  // origin by origin, so an endpoint that hangs delays only its own reports.
  options.deliveryRoom?.give((options.webhookLimits ?? DEFAULT_LIMITS).maxHeld);

  let stopping: Promise<void> | null = null;
  const observed = new Set<string>();
  return {
    wake(kinds) {
      if (!kinds || kinds.includes('sends')) sends.wake();
      if (!kinds || kinds.includes('jobs')) jobs.wake();
      if (!kinds || kinds.includes('webhooks')) webhookStage.wake();
      loop.request();
    },
    adopt: (work) => sends.adopt(work),
    adoptDeliveries(held) {
      webhookStage.adopt(held);
      loop.request();
    },
    webhookEndpoints: () => sender.endpoints(),
    observeConnectors() {
      if (!metrics) return;
      const states = connector.states?.() ?? {
        [connector.name]: { bound: stopping === null, inFlight: sends.submitting },
      };
      // A connector removed since the last look reads 0, not its last value.
      for (const name of observed) if (!(name in states)) states[name] = { bound: false, inFlight: 0 };
      for (const [name, state] of Object.entries(states)) {
        observed.add(name);
        metrics.connectorBinds(name, state.bound ? 1 : 0);
        metrics.connectorInFlight(name, state.inFlight ?? 0);
      }
    },
    failed,
    stop() {
      stopping ??= (async () => {
        sends.close();
        jobs.close();
        webhookStage.close();
        bornWebhooks.close();
        // Submits in flight finish and their outcomes are recorded: none is left to a lease.
        await sends.idle();
        await sender.stop();
        await connector.stop();
        // The last outcomes are recorded; a database that does not answer is not waited for
        // forever (the submits then count as interrupted for whichever node comes next).
        // The main loop first: receipts of submits it records wait for it (carrierEvents).
        const flushed = await Promise.race([
          (async () => {
            for (const l of loops) await l.settled();
            return true;
          })(),
          new Promise<false>((resolve) => setTimeout(() => resolve(false), STOP_FLUSH_MS).unref()),
        ]);
        if (!flushed) logger.error('outcomes not recorded before stopping: the database did not answer');
        for (const l of loops) await l.stop();
        await http.close();
        lease.stop();
        await lease.leave();
      })();
      return stopping;
    },
  };
}
