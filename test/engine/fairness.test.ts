import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { createEngineHarness, type EngineHarness } from '../helpers/engine.js';

describe.each(ENGINES)('fair scheduling across accounts on %s', (engineName) => {
  let h: EngineHarness;
  beforeAll(async () => {
    // 200 messages/s: account A's 2,000 recipients take ten seconds to go out.
    h = await createEngineHarness(engineName, { throughput: 200, env: { SMSGW_SIM_DELAY_MS: '50' } });
  });
  afterAll(async () => h.stop());

  it("one account's large batch does not hold back another account's single message", async () => {
    const big = await h.newAccount();
    const small = await h.newAccount();
    const to = Array.from({ length: 2000 }, (_, i) => `+61491${String(i).padStart(6, '0')}`);
    const bigId = await h.send({ to }, big.key);
    await h.until(
      () => h.status(bigId, big.key),
      (s) => s.status.sent + s.status.delivered > 0,
    );
    const smallId = await h.send({ to: ['+61491570150'] }, small.key);
    await h.until(
      () => h.status(smallId, small.key),
      (s) => s.to['+61491570150'] !== 'pending' && s.to['+61491570150'] !== 'submitted',
    );
    const bigNow = await h.status(bigId, big.key);
    // The single message went out while most of the batch was still queued ahead of it.
    expect(bigNow.status.submitted + bigNow.status.pending).toBeGreaterThan(1500);
  });

  it('the throughput limit holds: a batch is not sent faster than the rate', async () => {
    const acct = await h.newAccount();
    const to = Array.from({ length: 400 }, (_, i) => `+61492${String(i).padStart(6, '0')}`);
    const started = Date.now();
    const id = await h.send({ to }, acct.key);
    await h.until(
      () => h.status(id, acct.key),
      (s) => s.status.submitted === 0 && s.status.pending === 0,
      30_000,
    );
    // 400 at 200/s with a one-second burst allowance cannot finish in under a second.
    expect(Date.now() - started).toBeGreaterThan(900);
  });
});
