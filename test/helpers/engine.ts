import { pino } from 'pino';
import type { StatusCounts } from '../../src/domain/status.js';
import { startEngine, type Engine, type EngineConnector } from '../../src/engine/engine.js';
import { nodeIdentity } from '../../src/engine/host.js';
import type {
  CarrierConnector,
  CarrierEvents,
  SubmitOutcome,
  SubmitRequest,
} from '../../src/carriers/port.js';
import { createSimulator } from '../../src/carriers/simulator/simulator.js';
import type { EngineMetrics } from '../../src/metrics/engine-metrics.js';
import type { RetryDelay } from '../../src/store/engine-store.js';
import { call, createTestApp, type TestApp } from './app.js';

export interface EngineHarness extends TestApp {
  engine: Engine;
  /** Restart the engine (same store), e.g. to check recovery. */
  restart(): Promise<void>;
  /** POST a message with the test account's key; returns messageID. */
  send(body: Record<string, unknown>, key?: string): Promise<number>;
  status(
    id: number,
    key?: string,
  ): Promise<Record<string, unknown> & { to: Record<string, string>; status: StatusCounts }>;
  /** Waits until `check` holds, polling the API; fails after `timeoutMs`. */
  until<T>(probe: () => Promise<T>, check: (value: T) => boolean, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  readonly env?: Record<string, string>;
  /** Connector to use (it may read the test app's store); default: the simulator. */
  readonly connector?: (t: TestApp) => EngineConnector;
  readonly throughput?: number;
  readonly retryDelay?: RetryDelay;
  readonly metrics?: EngineMetrics;
}

export async function createEngineHarness(
  engineName: 'sqlite' | 'postgres',
  options: HarnessOptions = {},
): Promise<EngineHarness> {
  let engine: Engine | null = null;
  const t = await createTestApp(
    engineName,
    { SMSGW_SIM_DELAY_MS: '50', ...options.env },
    { realClock: true, wake: () => engine?.wake() },
  );
  const logger = pino({ level: 'silent' });
  const connector =
    options.connector ??
    (() =>
      createSimulator({
        delayMs: t.config.simDelayMs,
        now: () => Date.now(),
        logger,
        outstanding: () => t.store.engine.outstandingParts('simulator'),
      }));
  const start = () =>
    startEngine({
      store: t.store,
      connector: connector(t),
      config: t.config,
      logger,
      now: () => Date.now(),
      node: nodeIdentity({ nodeId: null }),
      ...(options.throughput !== undefined && { throughput: options.throughput }),
      ...(options.retryDelay !== undefined && { retryDelay: options.retryDelay }),
      ...(options.metrics && { metrics: options.metrics }),
    });
  engine = await start();
  const harness: EngineHarness = Object.assign(t, {
    engine,
    async restart() {
      await engine!.stop();
      engine = await start();
      harness.engine = engine;
    },
    async send(body: Record<string, unknown>, key = t.key) {
      const r = await call(t, 'POST', '/v1/sms/message', { from: 'Acme', body: 'Hello', ...body }, key);
      if (r.status !== 201) throw new Error(`send failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.messageID as number;
    },
    async status(id: number, key = t.key) {
      return (await call(t, 'GET', `/v1/sms/message/${id}/meta,status`, undefined, key)).body;
    },
    async until<T>(probe: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe();
        if (check(value)) return value;
        if (Date.now() > deadline)
          throw new Error(`condition not met in ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop() {
      await engine!.stop();
      await t.close();
    },
  });
  return harness;
}

/** A connector whose behaviour the test scripts, recording every submit. */
export class ScriptedConnector implements CarrierConnector {
  readonly name = 'scripted';
  readonly submits: SubmitRequest[] = [];
  events: CarrierEvents | null = null;
  private counter = 0;
  constructor(
    private readonly decide: (request: SubmitRequest, attempt: number) => SubmitOutcome | 'accept' = () =>
      'accept',
  ) {}
  async start(events: CarrierEvents) {
    this.events = events;
  }
  async submit(request: SubmitRequest): Promise<SubmitOutcome> {
    this.submits.push(request);
    const attempt = this.submits.filter((s) => s.reference === request.reference).length;
    const decision = this.decide(request, attempt);
    if (decision !== 'accept') return decision;
    const parts = Math.max(1, Math.ceil(request.body.length / 153));
    return { kind: 'accepted', carrierIds: Array.from({ length: parts }, () => `c${++this.counter}`) };
  }
  async stop() {}
}
