import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type {
  CarrierEvents,
  CarrierReceipt,
  SubmitOutcome,
  SubmitRequest,
} from '../../../src/carriers/port.js';
import { createRouter, type ChildConnector } from '../../../src/carriers/routing/router.js';
import { candidates, type Route } from '../../../src/carriers/routing/routes.js';

class FakeChild implements ChildConnector {
  bound = true;
  started = 0;
  stopped = 0;
  submits: SubmitRequest[] = [];
  events: CarrierEvents | null = null;
  outcome: SubmitOutcome = { kind: 'accepted', carrierIds: ['A1'] };
  constructor(readonly name: string) {}
  async start(e: CarrierEvents) {
    this.started += 1;
    this.events = e;
  }
  async submit(r: SubmitRequest) {
    this.submits.push(r);
    return this.outcome;
  }
  async stop() {
    this.stopped += 1;
  }
  state() {
    return { bound: this.bound };
  }
  isBound() {
    return this.bound;
  }
}

const request = (to: string): SubmitRequest => ({
  reference: 'r1',
  from: 'Acme',
  to,
  body: 'hi',
  requestReceipt: true,
});

function setup(routes: Route[], names = ['a', 'b']) {
  const children = new Map(names.map((n) => [n, new FakeChild(n)]));
  const config = { connectors: names.map((name) => ({ name, enabled: true })), routes };
  const receipts: CarrierReceipt[] = [];
  const router = createRouter({
    name: 'smpp',
    load: async () => config,
    create: (c) => children.get(c.name)!,
    logger: pino({ level: 'silent' }),
    reloadEveryMs: 60_000,
  });
  return {
    router,
    children,
    config,
    receipts,
    events: { receipt: async (r: CarrierReceipt) => void receipts.push(r), inbound: async () => undefined },
  };
}

describe('route candidates', () => {
  it('orders by priority, then the more specific prefix', () => {
    const routes: Route[] = [
      { prefix: '+', connector: 'any', priority: 5 },
      { prefix: '+61', connector: 'au', priority: 1 },
      { prefix: '+614', connector: 'au-mobile', priority: 1 },
      { prefix: '+44', connector: 'uk', priority: 0 },
    ];
    expect(candidates(routes, '+61491570156').map((r) => r.connector)).toEqual(['au-mobile', 'au', 'any']);
    expect(candidates(routes, '+4477009').map((r) => r.connector)).toEqual(['uk', 'any']);
    expect(candidates(routes.slice(1), '+1202555')).toEqual([]);
  });
});

describe('router', () => {
  it('sends by the best route and namespaces carrier ids and receipts by connector', async () => {
    const { router, children, events, receipts } = setup([
      { prefix: '+61', connector: 'a', priority: 0 },
      { prefix: '+61', connector: 'b', priority: 1 },
    ]);
    await router.start(events);
    expect(await router.submit(request('+61491570156'))).toEqual({
      kind: 'accepted',
      carrierIds: ['a/A1'],
      connector: 'a',
    });
    expect(children.get('b')!.submits).toHaveLength(0);
    await children.get('a')!.events!.receipt({ carrierId: 'A1', state: 'delivered', at: 1 });
    expect(receipts).toEqual([{ carrierId: 'a/A1', state: 'delivered', at: 1, connector: 'a' }]);
    await router.stop();
  });

  it('fails over to the next route when a connector is unbound', async () => {
    const { router, children, events } = setup([
      { prefix: '+61', connector: 'a', priority: 0 },
      { prefix: '+61', connector: 'b', priority: 1 },
    ]);
    await router.start(events);
    children.get('a')!.bound = false;
    children.get('b')!.outcome = { kind: 'accepted', carrierIds: ['B7'] };
    expect(await router.submit(request('+61491570156'))).toEqual({
      kind: 'accepted',
      carrierIds: ['b/B7'],
      connector: 'b',
    });
    // A link that drops during the submit also fails over: nothing left this node.
    children.get('a')!.bound = true;
    children.get('a')!.outcome = { kind: 'retry', reason: 'not-bound: link down' };
    expect(await router.submit(request('+61491570156'))).toEqual({
      kind: 'accepted',
      carrierIds: ['b/B7'],
      connector: 'b',
    });
    await router.stop();
  });

  it('retries when routes exist but none is bound, and aborts when there is no route', async () => {
    const { router, children, events } = setup([{ prefix: '+61', connector: 'a', priority: 0 }]);
    await router.start(events);
    children.get('a')!.bound = false;
    expect((await router.submit(request('+61491570156'))).kind).toBe('retry');
    expect(await router.submit(request('+447700900123'))).toEqual({
      kind: 'aborted',
      reason: 'no route for +447700900123',
    });
    await router.stop();
  });

  it('passes a permanent refusal through without trying another route', async () => {
    const { router, children, events } = setup([
      { prefix: '+', connector: 'a', priority: 0 },
      { prefix: '+', connector: 'b', priority: 1 },
    ]);
    await router.start(events);
    children.get('a')!.outcome = { kind: 'rejected', reason: 'ESME_RINVDSTADR', code: 11 };
    expect((await router.submit(request('+61491570156'))).kind).toBe('rejected');
    expect(children.get('b')!.submits).toHaveLength(0);
    await router.stop();
  });

  it('reload starts new connectors, stops removed ones and restarts changed ones', async () => {
    const { router, children, config, events } = setup(
      [{ prefix: '+', connector: 'a', priority: 0 }],
      ['a', 'b'],
    );
    await router.start(events);
    expect([children.get('a')!.started, children.get('b')!.started]).toEqual([1, 1]);
    config.connectors = [{ name: 'a', enabled: true }];
    await router.reload();
    expect(children.get('b')!.stopped).toBe(1);
    config.connectors = [{ name: 'a', enabled: false }];
    await router.reload();
    expect(children.get('a')!.stopped).toBe(1);
    expect(Object.keys(router.states())).toEqual([]);
    await router.stop();
  });
});
