import { afterEach, describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../src/carriers/port.js';
import { ENGINES } from '../helpers/engines.js';
import { createEngineHarness, ScriptedConnector, type EngineHarness } from '../helpers/engine.js';

const isFinal = (v: string) => !['pending', 'submitted', 'sent'].includes(v);

describe.each(ENGINES)('carrier outcomes on %s', (engineName) => {
  let h: EngineHarness | null = null;
  afterEach(async () => {
    await h?.stop();
    h = null;
  });
  const harness = async (connector: ScriptedConnector, env: Record<string, string> = {}) => {
    h = await createEngineHarness(engineName, {
      connector: () => connector,
      retryDelay: (n) => (n < 3 ? 20 : null),
      env,
    });
    return h;
  };
  const attempts = (t: EngineHarness, recipientMsisdn: string) =>
    t.db.conn.db
      .selectFrom('submit_attempts as a')
      .innerJoin('recipients as r', 'r.id', 'a.recipient_id')
      .select(['a.outcome', 'a.detail'])
      .where('r.msisdn', '=', recipientMsisdn)
      .orderBy('a.id')
      .execute();

  it('retries a temporary failure with backoff, then records the acceptance', async () => {
    const c = new ScriptedConnector((_r, attempt): SubmitOutcome | 'accept' =>
      attempt === 1 ? { kind: 'retry', reason: 'ESME_RTHROTTLED' } : 'accept',
    );
    const t = await harness(c);
    const id = await t.send({ to: ['+61491570150'] });
    await t.until(
      () => t.status(id),
      (s) => s.to['+61491570150'] === 'sent',
    );
    expect(c.submits).toHaveLength(2);
    expect(await attempts(t, '+61491570150')).toEqual([
      { outcome: 'retry', detail: 'ESME_RTHROTTLED' },
      { outcome: 'accepted', detail: null },
    ]);
  });

  it('aborts when retries are exhausted and refunds the credit', async () => {
    const c = new ScriptedConnector(() => ({ kind: 'retry', reason: 'not bound' }));
    const t = await harness(c);
    const { account, key } = await t.newAccount({ credits: 5 });
    const id = await t.send({ to: ['+61491570150'] }, key);
    const s = await t.until(
      () => t.status(id, key),
      (v) => isFinal(v.to['+61491570150']!),
    );
    expect(s.to['+61491570150']).toBe('aborted');
    expect(c.submits).toHaveLength(3);
    expect(s.balance_used).toBe(0);
    expect((await t.store.accounts.get(account.id))?.credits).toBe(5);
  });

  it('a permanent refusal is rejected, without retry', async () => {
    const c = new ScriptedConnector(() => ({ kind: 'rejected', reason: 'ESME_RINVDSTADR' }));
    const t = await harness(c);
    const id = await t.send({ to: ['+61491570150'] });
    const s = await t.until(
      () => t.status(id),
      (v) => isFinal(v.to['+61491570150']!),
    );
    expect(s.to['+61491570150']).toBe('rejected');
    expect(c.submits).toHaveLength(1);
  });

  it('a connector that throws does not lose the recipient', async () => {
    let calls = 0;
    const c = new ScriptedConnector(() => {
      calls += 1;
      if (calls === 1) throw new Error('socket closed');
      return 'accept';
    });
    const t = await harness(c);
    const id = await t.send({ to: ['+61491570150'] });
    await t.until(
      () => t.status(id),
      (s) => s.to['+61491570150'] === 'sent',
    );
  });

  it('a multi-part recipient is delivered only when every part is', async () => {
    const c = new ScriptedConnector();
    const t = await harness(c);
    const id = await t.send({ to: ['+61491570150', '+61491570151'], body: 'y'.repeat(300) });
    await t.until(
      () => t.status(id),
      (s) => Object.values(s.to).every((v) => v === 'sent'),
    );
    const [a1, a2, b1, b2] = ['c1', 'c2', 'c3', 'c4'];
    const at = Date.now();
    await c.events!.receipt({ carrierId: a1!, state: 'delivered', at });
    await c.events!.receipt({ carrierId: b1!, state: 'delivered', at });
    await c.events!.receipt({ carrierId: b2!, state: 'enroute', at });
    let s = await t.status(id);
    expect(Object.values(s.to)).toEqual(['sent', 'sent']);
    await c.events!.receipt({ carrierId: a2!, state: 'delivered', at });
    await c.events!.receipt({ carrierId: b2!, state: 'failed', at });
    s = await t.status(id);
    expect(Object.values(s.to).sort()).toEqual(['delivered', 'failed']);
    expect(s.complete_at).not.toBeNull();
    // A late or repeated receipt never rewrites a final status.
    await c.events!.receipt({ carrierId: b2!, state: 'delivered', at });
    expect(Object.values((await t.status(id)).to).sort()).toEqual(['delivered', 'failed']);
  });

  it('a receipt that overtakes its submit response is not lost', async () => {
    const c = new ScriptedConnector();
    const original = c.submit.bind(c);
    c.submit = async (request) => {
      const outcome = await original(request);
      if (outcome.kind === 'accepted') {
        // The SMSC's receipt arrives before the submit result is recorded.
        await c.events!.receipt({ carrierId: outcome.carrierIds[0]!, state: 'delivered', at: Date.now() });
      }
      return outcome;
    };
    const t = await harness(c);
    const id = await t.send({ to: ['+61491570150'] });
    const s = await t.until(
      () => t.status(id),
      (v) => isFinal(v.to['+61491570150']!),
    );
    expect(s.to['+61491570150']).toBe('delivered');
  });

  it('a sent recipient without a receipt becomes unknown after SMSGW_RECEIPT_TIMEOUT', async () => {
    const c = new ScriptedConnector();
    const t = await harness(c, { SMSGW_RECEIPT_TIMEOUT: '1s' });
    const id = await t.send({ to: ['+61491570150'] });
    const s = await t.until(
      () => t.status(id),
      (v) => isFinal(v.to['+61491570150']!),
      10_000,
    );
    expect(s.to['+61491570150']).toBe('unknown');
    // It reached the carrier, so it stays charged.
    expect(s.balance_used).toBe(1);
  });
});
