import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call } from '../helpers/app.js';
import { createEngineHarness, type EngineHarness } from '../helpers/engine.js';
import { ENGINES } from '../helpers/engines.js';

/** GET /admin/v1/stats against a real engine and the simulated carrier (decisions §8 outcomes). */
describe.each(ENGINES)('the dashboard stats on %s', (engine) => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await createEngineHarness(engine);
  });
  afterAll(async () => h.stop());

  const stats = async () => {
    const r = await call(h, 'GET', '/admin/v1/stats', undefined, ADMIN_TOKEN);
    expect(r.status).toBe(200);
    return r.body;
  };

  it('needs the admin token', async () => {
    expect((await call(h, 'GET', '/admin/v1/stats', undefined, h.key)).status).toBe(401);
  });

  it('counts recipients as they are accepted, sent and finish, and shows what waits', async () => {
    const before = await stats();
    expect(before).toMatchObject({
      at: expect.stringMatching(/Z$/),
      gauges: { pending: 0, submitted: 0, awaiting_receipt: 0, webhooks_due: 0, webhook_lag_seconds: 0 },
      connectors: [],
    });

    // Last digits 0 and 1 are delivered, 5 fails after sending, 6 is rejected at submit.
    const id = await h.send({ to: ['+61491570150', '+61491570151', '+61491570155', '+61491570156'] });
    await h.send({ to: ['+61491570152', '+61491570153'], send_at: '2030-01-01T00:00:00Z' });
    await h.until(
      () => h.status(id),
      (m) => m.complete_at !== null,
    );

    const after = await h.until(stats, (s) => s.counters.delivered - before.counters.delivered === 2, 20_000);
    expect(after.counters.accepted - before.counters.accepted).toBe(6);
    expect(after.counters.sent - before.counters.sent).toBe(3);
    expect(after.counters.failed - before.counters.failed).toBe(2);
    expect(after.gauges).toMatchObject({ pending: 2, submitted: 0, awaiting_receipt: 0 });
  });
});
