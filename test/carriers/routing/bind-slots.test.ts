import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CarrierEvents, SubmitRequest } from '../../../src/carriers/port.js';
import { createRouter, type ChildConnector } from '../../../src/carriers/routing/router.js';
import type { Store } from '../../../src/store/port.js';
import { createStore } from '../../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../../helpers/engines.js';

/** A connector that is "bound" from start to stop, counting both. */
class Child implements ChildConnector {
  bound = false;
  constructor(readonly name: string) {}
  async start(_e: CarrierEvents) {
    this.bound = true;
  }
  async submit(_r: SubmitRequest) {
    return { kind: 'accepted' as const, carrierIds: ['x'] };
  }
  async stop() {
    this.bound = false;
  }
  state() {
    return { bound: this.bound };
  }
  isBound() {
    return this.bound;
  }
}

const events: CarrierEvents = { receipt: async () => {}, inbound: async () => {} };

describe.each(ENGINES)('binds to an SMSC across nodes on %s (decisions §23)', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn);
  });
  afterAll(async () => db.drop());

  /** A node's router over the shared store, with connectors of the given max_binds. */
  function node(id: string, connectors: { name: string; maxBinds: number }[]) {
    const children = new Map<string, Child>();
    const router = createRouter({
      name: 'smpp',
      load: async () => ({
        connectors: connectors.map((c) => ({ ...c, enabled: true })),
        routes: connectors.map((c) => ({ prefix: '+', connector: c.name, priority: 0 })),
      }),
      create: (c) => {
        const child = new Child(c.name);
        children.set(`${c.name}`, child);
        return child;
      },
      binds: {
        acquire: (connector, maxBinds) => store.binds.acquire(connector, id, maxBinds, Date.now()),
        release: (connector) => store.binds.release(connector, id),
      },
      logger: pino({ level: 'silent' }),
      reloadEveryMs: 60_000,
    });
    return { router, bound: (name: string) => children.get(name)?.bound === true };
  }

  it('max_binds 1: one node binds; another binds once the first lets go', async () => {
    const a = node('a', [{ name: 'one', maxBinds: 1 }]);
    const b = node('b', [{ name: 'one', maxBinds: 1 }]);
    await a.router.start(events);
    await b.router.start(events);
    expect([a.bound('one'), b.bound('one')]).toEqual([true, false]);
    expect(await store.binds.holders()).toEqual([
      expect.objectContaining({ connector: 'one', slot: 0, node: 'a' }),
    ]);
    // b's routes have no bound connector: it does not submit there.
    expect(
      (await b.router.submit({ reference: 'r', from: 'A', to: '+1555', body: 'x', requestReceipt: true }))
        .kind,
    ).toBe('retry');
    await a.router.stop();
    await b.router.reload();
    expect(b.bound('one')).toBe(true);
    expect((await store.binds.holders()).map((h) => h.node)).toEqual(['b']);
    await b.router.stop();
    expect(await store.binds.holders()).toEqual([]);
  });

  it('max_binds 2: two nodes bind, a third waits', async () => {
    const nodes = ['p', 'q', 'r'].map((id) => node(id, [{ name: 'two', maxBinds: 2 }]));
    for (const n of nodes) await n.router.start(events);
    expect(nodes.map((n) => n.bound('two'))).toEqual([true, true, false]);
    expect((await store.binds.holders()).map((h) => [h.slot, h.node])).toEqual([
      [0, 'p'],
      [1, 'q'],
    ]);
    for (const n of nodes) await n.router.stop();
  });
});
