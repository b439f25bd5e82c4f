import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { createCarrier } from '../carriers/connector.js';
import type { Config } from '../config/config.js';
import type { Store } from '../store/port.js';
import type { WriteLock } from '../store/sqlite/write-lock.js';
import type { Router } from '../carriers/routing/router.js';
import type { EndpointState } from '../webhooks/sender.js';
import type { SendWork } from '../store/engine-store.js';
import type { HeldDelivery } from '../store/webhooks.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { MetricSnapshot } from '../metrics/families.js';
import { createThreadMetrics } from '../metrics/thread-metrics.js';
import { spawnThread } from '../spawn-thread.js';
import { startEngine, type Engine, type NodeIdentity, type WakeKind } from './engine.js';
import type { SendRoom } from './send-room.js';

/** The sending engine as the rest of the server sees it, wherever it runs. */
export interface SendingEngine {
  /** This node's identity among the nodes of its database. */
  readonly node: NodeIdentity;
  /** New work may be due (a message was accepted, released or cancelled; a webhook queued). */
  wake(kinds?: readonly WakeKind[]): void;
  /** Recipients accepted held by this node, their room taken: the engine submits them. */
  adopt(work: SendWork[]): void;
  /** Webhooks queued held by this node, their room taken: the engine sends them. */
  adoptDeliveries(held: HeldDelivery[]): void;
  /** Connectors or routes were changed through the admin API. */
  routingChanged(): void;
  /** Each connector's live state (bound, in flight, throughput, errors), by name. */
  connectorStates(): Promise<Record<string, unknown>>;
  /** Each webhook endpoint this node sends to, with its circuit. */
  webhookEndpoints(): Promise<EndpointState[]>;
  /** The engine's metrics as they are now, for the API thread's /metrics (decisions §12). */
  metrics(): Promise<readonly MetricSnapshot[]>;
  /** Stops claiming, finishes in-flight work, stops the carrier links. */
  stop(): Promise<void>;
  /** Settles only if the engine dies on its own; the process should then stop. */
  readonly failed: Promise<Error>;
}

export interface EngineHostOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** This node's identity (nodeIdentity()). */
  readonly node: NodeIdentity;
  /** Room for submits, shared by the engine with this node's API. */
  readonly room: SendRoom;
  /** Room for the webhooks this node's API queues held, given by the engine. */
  readonly deliveryRoom: SendRoom;
}

/**
 * SMSGW_NODE_ID, else a new random id per start: two processes on one host (or one port on
 * two hosts) can never share an id by accident. Host and pid are kept beside it for people.
 */
export function nodeIdentity(config: Pick<Config, 'nodeId'>): NodeIdentity {
  return {
    id: config.nodeId ?? `n-${randomBytes(6).toString('hex')}`,
    host: hostname(),
    pid: process.pid,
  };
}

/** Runs the engine on this thread, sharing the API's store: for an in-memory SQLite database. */
export async function startEngineHere(
  options: EngineHostOptions & { readonly store: Store; readonly now: () => number },
): Promise<SendingEngine> {
  const threadMetrics = createThreadMetrics();
  const { engine, router } = await startCarrierEngine({ ...options, metrics: threadMetrics.engine });
  return {
    node: options.node,
    metrics: () => {
      engine.observeConnectors();
      return threadMetrics.snapshot();
    },
    wake: (kinds) => engine.wake(kinds),
    adopt: (work) => engine.adopt(work),
    adoptDeliveries: (held) => engine.adoptDeliveries(held),
    routingChanged: () => void router?.reload(),
    connectorStates: () => Promise.resolve(router?.states() ?? {}),
    webhookEndpoints: () => Promise.resolve(engine.webhookEndpoints()),
    stop: () => engine.stop(),
    failed: engine.failed,
  };
}

/** The carrier links (simulator or SMPP router) and the engine that sends through them. */
export async function startCarrierEngine(
  options: EngineHostOptions & {
    readonly store: Store;
    readonly now: () => number;
    readonly metrics: EngineMetrics;
  },
): Promise<{ engine: Engine; router: Router | null }> {
  const { config, store, logger, now, node } = options;
  const { connector, router } = createCarrier(config, store, logger, now, node.id);
  const engine = await startEngine({
    store,
    connector,
    config,
    logger,
    now,
    node,
    throughput: config.carrier === 'simulator' ? config.simThroughput : 0,
    room: options.room,
    deliveryRoom: options.deliveryRoom,
    metrics: options.metrics,
    // A dead node's binds are free now: bind without waiting for the next reload.
    onTakenOver: () => void router?.reload(),
  });
  return { engine, router };
}

/** What the engine thread starts from (workerData): plain data only. */
export interface EngineThreadData {
  readonly config: Config;
  readonly logLevel: string;
  readonly node: NodeIdentity;
  readonly writeLock: SharedArrayBuffer | null;
  readonly room: SharedArrayBuffer;
  readonly deliveryRoom: SharedArrayBuffer;
}

export type ToEngineThread =
  | { readonly type: 'wake'; readonly kinds: readonly WakeKind[] | null }
  | { readonly type: 'sends'; readonly work: SendWork[] }
  | { readonly type: 'deliveries'; readonly held: HeldDelivery[] }
  | { readonly type: 'routing' }
  | { readonly type: 'states'; readonly id: number }
  | { readonly type: 'endpoints'; readonly id: number }
  | { readonly type: 'metrics'; readonly id: number }
  | { readonly type: 'stop' };

export type FromEngineThread =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'states'; readonly id: number; readonly states: Record<string, unknown> }
  | { readonly type: 'endpoints'; readonly id: number; readonly endpoints: EndpointState[] }
  | { readonly type: 'metrics'; readonly id: number; readonly snapshot: MetricSnapshot[] }
  | { readonly type: 'stopped' };

/**
 * Runs the engine in a worker thread with its own database connection. Sending (claims, status
 * changes, receipts, the carrier links, webhooks) then has a core of its own, and the API's
 * requests no longer queue behind it: on 2 cores the ingest bench went from 21,000 to over
 * 100,000 recipients/s in bulk POSTs while the engine kept up. Everything between the two goes
 * through the database, which is already how several nodes share work; the thread only needs
 * wake-ups.
 */
export function startEngineThread(
  options: EngineHostOptions & { readonly writeLock: WriteLock | null },
): Promise<SendingEngine> {
  const data: EngineThreadData = {
    config: options.config,
    logLevel: options.logger.level,
    node: options.node,
    writeLock: options.writeLock?.buffer ?? null,
    room: options.room.buffer,
    deliveryRoom: options.deliveryRoom.buffer,
  };
  return hostEngineThread(spawnEngineThread(data), { logger: options.logger, node: data.node });
}

/** The API thread's side of a started engine thread: its messages, its death, its stop. */
export function hostEngineThread(
  worker: Worker,
  options: { readonly logger: Logger; readonly node: NodeIdentity },
): Promise<SendingEngine> {
  const { logger } = options;
  const send = (message: ToEngineThread) => worker.postMessage(message);
  const pending = new Map<number, (answer: FromEngineThread | null) => void>();
  let nextId = 0;
  let stopping = false;
  let stopped: () => void = () => {};
  const stoppedPromise = new Promise<void>((resolve) => (stopped = resolve));
  let fail: (error: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => (fail = resolve));
  let dead = false;

  const ask = (type: 'states' | 'endpoints' | 'metrics') => {
    if (stopping || dead) return Promise.resolve(null);
    const id = nextId++;
    return new Promise<FromEngineThread | null>((answer) => {
      pending.set(id, answer);
      send({ type, id });
    });
  };

  return new Promise<SendingEngine>((resolve, reject) => {
    let ready = false;
    const died = (error: Error) => {
      if (dead) return;
      dead = true;
      for (const answer of pending.values()) answer(null);
      pending.clear();
      // Nothing is left to stop: a stop() now or later returns at once.
      stopped();
      if (!ready) {
        // Whatever the thread opened before it failed goes with it.
        void worker.terminate();
        return reject(error);
      }
      if (stopping) return;
      logger.fatal({ err: error }, 'the sending engine stopped unexpectedly');
      fail(error);
    };
    worker.on('message', (message: FromEngineThread) => {
      switch (message.type) {
        case 'ready':
          ready = true;
          resolve(engine);
          break;
        case 'failed':
          died(new Error(message.message));
          break;
        case 'states':
        case 'endpoints':
        case 'metrics':
          pending.get(message.id)?.(message);
          pending.delete(message.id);
          break;
        case 'stopped':
          stopped();
          break;
      }
    });
    worker.on('error', (error) => died(error));
    worker.on('exit', (code) => died(new Error(`engine thread exited with code ${code}`)));

    // Wake-ups of one turn of the event loop go as one message, naming what they woke.
    let wakeAll = false;
    const kinds = new Set<WakeKind>();
    const postWake = oncePerTurn(() => {
      send({ type: 'wake', kinds: wakeAll ? null : [...kinds] });
      wakeAll = false;
      kinds.clear();
    });
    const engine: SendingEngine = {
      node: options.node,
      wake(what) {
        if (what === undefined) wakeAll = true;
        else for (const k of what) kinds.add(k);
        postWake();
      },
      adopt: (work) => send({ type: 'sends', work }),
      adoptDeliveries: (held) => send({ type: 'deliveries', held }),
      routingChanged: () => send({ type: 'routing' }),
      async connectorStates() {
        const answer = await ask('states');
        return answer?.type === 'states' ? answer.states : {};
      },
      async webhookEndpoints() {
        const answer = await ask('endpoints');
        return answer?.type === 'endpoints' ? answer.endpoints : [];
      },
      async metrics() {
        const answer = await ask('metrics');
        return answer?.type === 'metrics' ? answer.snapshot : [];
      },
      async stop() {
        if (!stopping) {
          stopping = true;
          send({ type: 'stop' });
        }
        await stoppedPromise;
        await worker.terminate();
      },
      failed,
    };
  });
}

/** Runs `fn` once in the next turn of the event loop, however often it is asked for before. */
export function oncePerTurn(fn: () => void): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      fn();
    });
  };
}

function spawnEngineThread(data: EngineThreadData): Worker {
  // Without a limit V8 let the engine's heap grow to 195 MB while draining a backlog, mostly
  // garbage between collections (50-60 MB live); capped, it collects sooner.
  const options = { workerData: data, resourceLimits: { maxOldGenerationSizeMb: data.config.engineHeapMb } };
  return spawnThread(import.meta.url, 'thread', options);
}
