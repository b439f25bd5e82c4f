/** Shared pieces of the SMPP socket tests: a simulator, a connector bound to it, event capture. */
import { pino, type Logger } from 'pino';
import type { CarrierEvents, CarrierReceipt, InboundSms } from '../../../src/carriers/port.js';
import {
  createSmppConnector,
  type SmppConnector,
  type SmppConnectorOptions,
} from '../../../src/carriers/smpp/connector/index.js';
import {
  createSmscSimulator,
  type SmscSimulator,
  type SmscSimulatorOptions,
} from '../../../src/carriers/smpp/smsc/index.js';

/** SMPP_TEST_LOG=debug shows the protocol logs of a failing test. */
export const testLogger: Logger = pino({ level: process.env.SMPP_TEST_LOG ?? 'silent' });

/** Polls until `check` returns a value other than undefined/null/false; fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | null | false,
  what: string | (() => string),
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`,
      );
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Recorder extends CarrierEvents {
  readonly receipts: CarrierReceipt[];
  /** What inbound() received. */
  readonly messages: InboundSms[];
  /** Make the next `n` receipt() calls fail (the engine could not record them). */
  failNextReceipts(n: number): void;
}

export function recorder(): Recorder {
  const receipts: CarrierReceipt[] = [];
  const messages: InboundSms[] = [];
  let failures = 0;
  return {
    receipts,
    messages,
    failNextReceipts: (n) => (failures = n),
    receipt: async (r) => {
      if (failures > 0) {
        failures--;
        throw new Error('simulated store failure');
      }
      receipts.push(r);
    },
    inbound: async (m) => {
      messages.push(m);
    },
  };
}

/** Everything a test starts, stopped in reverse order by stopAll(). */
export class Harness {
  private readonly stops: (() => Promise<void>)[] = [];

  async sim(options: SmscSimulatorOptions = {}): Promise<SmscSimulator> {
    const sim = await createSmscSimulator({ logger: testLogger.child({ side: 'smsc' }), ...options });
    this.stops.push(() => sim.close());
    return sim;
  }

  connector(port: number, options: Partial<SmppConnectorOptions> = {}): SmppConnector {
    const connector = createSmppConnector({
      name: 'test-smpp',
      host: '127.0.0.1',
      port,
      systemId: 'smsgw',
      password: 'secret',
      logger: testLogger.child({ side: 'esme' }),
      reconnect: { initialMs: 100, maxMs: 1_000 },
      responseTimeoutMs: 5_000,
      ...options,
    });
    this.stops.push(() => connector.stop());
    return connector;
  }

  /** A connector bound to `port` and recording its events. */
  async started(port: number, options: Partial<SmppConnectorOptions> = {}) {
    const connector = this.connector(port, options);
    const events = recorder();
    await connector.start(events);
    return { connector, events };
  }

  add(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }

  async stopAll(): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) await stop().catch(() => {});
  }
}

export function request(to: string, body: string, extra: { from?: string; requestReceipt?: boolean } = {}) {
  return {
    reference: `ref-${to}-${body.length}`,
    from: extra.from ?? '+447700900001',
    to,
    body,
    requestReceipt: extra.requestReceipt ?? true,
  };
}
