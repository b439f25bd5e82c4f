import { describe, expect, it } from 'vitest';
import { InFlight } from '../../../../src/carriers/smpp/connector/in-flight.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((ok, fail) => ((resolve = ok), (reject = fail)));
  return { promise, resolve, reject };
}

const settledYet = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('InFlight', () => {
  it('settled() waits for the submits tracked before it, not for later ones', async () => {
    const inFlight = new InFlight();
    const [a, b, later] = [deferred(), deferred(), deferred()];
    inFlight.track(a.promise);
    inFlight.track(b.promise);
    const waiting = inFlight.settled();
    inFlight.track(later.promise);
    b.resolve();
    expect(await settledYet(waiting)).toBe(false);
    a.reject(new Error('a rejected submit counts as settled'));
    expect(await settledYet(waiting)).toBe(true);
    expect(inFlight.size).toBe(1);
  });

  it('with nothing in flight, settled() resolves at once', async () => {
    const inFlight = new InFlight();
    const done = deferred();
    inFlight.track(done.promise);
    done.resolve();
    await new Promise((r) => setImmediate(r));
    expect(await settledYet(inFlight.settled())).toBe(true);
  });

  it('waiters resolve in order as the oldest submits settle', async () => {
    const inFlight = new InFlight();
    const [a, b] = [deferred(), deferred()];
    inFlight.track(a.promise);
    const first = inFlight.settled();
    inFlight.track(b.promise);
    const second = inFlight.settled();
    a.resolve();
    expect(await settledYet(first)).toBe(true);
    expect(await settledYet(second)).toBe(false);
    b.resolve();
    expect(await settledYet(second)).toBe(true);
  });
});
