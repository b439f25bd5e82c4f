import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { createCarrier } from '../carriers/connector.js';
import type { Config } from '../config/config.js';
import type { Store } from '../store/port.js';
import type { WriteLock } from '../store/sqlite/write-lock.js';
import type { Router } from '../carriers/routing/router.js';
import { startEngine, type Engine } from './engine.js';

/** The sending engine as the rest of the server sees it, wherever it runs. */
export interface SendingEngine {
  /** New work may be due (a message was accepted, released or cancelled). */
  wake(): void;
  /** Connectors or routes were changed through the admin API. */
  routingChanged(): void;
  /** Each connector's live state (bound, in flight, throughput, errors), by name. */
  connectorStates(): Promise<Record<string, unknown>>;
  /** Stops claiming, finishes in-flight work, stops the carrier links. */
  stop(): Promise<void>;
  /** Settles only if the engine dies on its own; the process should then stop. */
  readonly failed: Promise<Error>;
}

export interface EngineHostOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** Stable name of this node for its leases (host:port). */
  readonly workerId: string;
}

/** Runs the engine on this thread, sharing the API's store: for an in-memory SQLite database. */
export async function startEngineHere(
  options: EngineHostOptions & { readonly store: Store; readonly now: () => number },
): Promise<SendingEngine> {
  const { engine, router } = await startCarrierEngine(options);
  return {
    wake: () => engine.wake(),
    routingChanged: () => void router?.reload(),
    connectorStates: () => Promise.resolve(router?.states() ?? {}),
    stop: () => engine.stop(),
    failed: new Promise(() => {}),
  };
}

/** The carrier links (simulator or SMPP router) and the engine that sends through them. */
export async function startCarrierEngine(
  options: EngineHostOptions & { readonly store: Store; readonly now: () => number },
): Promise<{ engine: Engine; router: Router | null }> {
  const { config, store, logger, now } = options;
  const { connector, router } = createCarrier(config, store, logger, now);
  const engine = await startEngine({
    store,
    connector,
    config,
    logger,
    now,
    workerId: options.workerId,
    throughput: config.carrier === 'simulator' ? config.simThroughput : 0,
  });
  return { engine, router };
}

/** What the engine thread starts from (workerData): plain data only. */
export interface EngineThreadData {
  readonly config: Config;
  readonly logLevel: string;
  readonly workerId: string;
  readonly writeLock: SharedArrayBuffer | null;
}

export type ToEngineThread =
  | { readonly type: 'wake' }
  | { readonly type: 'routing' }
  | { readonly type: 'states'; readonly id: number }
  | { readonly type: 'stop' };

export type FromEngineThread =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'webhooks' }
  | { readonly type: 'states'; readonly id: number; readonly states: Record<string, unknown> }
  | { readonly type: 'stopped' };

/**
 * Runs the engine in a worker thread with its own database connection. Sending (claims, status
 * changes, receipts, the carrier links) then has a core of its own, and the API's requests no
 * longer queue behind it: on 2 cores the ingest bench went from 21,000 to over 100,000
 * recipients/s in bulk POSTs while the engine kept up. Everything between the two goes through
 * the database, which is already how several nodes share work; the thread only needs wake-ups.
 */
export function startEngineThread(
  options: EngineHostOptions & {
    readonly writeLock: WriteLock | null;
    /** The engine queued webhooks, which this thread's runner sends. */
    readonly onWebhooksQueued: () => void;
  },
): Promise<SendingEngine> {
  const data: EngineThreadData = {
    config: options.config,
    logLevel: options.logger.level,
    workerId: options.workerId,
    writeLock: options.writeLock?.buffer ?? null,
  };
  return hostEngineThread(spawnEngineThread(data), options);
}

/** The API thread's side of a started engine thread: its messages, its death, its stop. */
export function hostEngineThread(
  worker: Worker,
  options: { readonly logger: Logger; readonly onWebhooksQueued: () => void },
): Promise<SendingEngine> {
  const { logger } = options;
  const send = (message: ToEngineThread) => worker.postMessage(message);
  const pendingStates = new Map<number, (states: Record<string, unknown>) => void>();
  let nextId = 0;
  let stopping = false;
  let stopped: () => void = () => {};
  const stoppedPromise = new Promise<void>((resolve) => (stopped = resolve));
  let fail: (error: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => (fail = resolve));

  return new Promise<SendingEngine>((resolve, reject) => {
    let ready = false;
    let dead = false;
    const died = (error: Error) => {
      if (dead) return;
      dead = true;
      for (const answer of pendingStates.values()) answer({});
      pendingStates.clear();
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
        case 'webhooks':
          options.onWebhooksQueued();
          break;
        case 'states':
          pendingStates.get(message.id)?.(message.states);
          pendingStates.delete(message.id);
          break;
        case 'stopped':
          stopped();
          break;
      }
    });
    worker.on('error', (error) => died(error));
    worker.on('exit', (code) => died(new Error(`engine thread exited with code ${code}`)));

    const engine: SendingEngine = {
      // A burst of POSTs is one message to the thread.
      wake: oncePerTurn(() => send({ type: 'wake' })),
      routingChanged: () => send({ type: 'routing' }),
      connectorStates() {
        if (stopping || dead) return Promise.resolve({});
        const id = nextId++;
        return new Promise((answer) => {
          pendingStates.set(id, answer);
          send({ type: 'states', id });
        });
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

/**
 * From TypeScript source (tests, the benches, tsx) the thread needs tsx's loader as well, and
 * Node 20 does not apply --import hooks to a worker's entry module: register them first.
 */
function spawnEngineThread(data: EngineThreadData): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./engine-thread.js', import.meta.url), { workerData: data });
  const entry = JSON.stringify(new URL('./engine-thread.ts', import.meta.url).href);
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); })`;
  return new Worker(boot, { eval: true, workerData: data });
}
