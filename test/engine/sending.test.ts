import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createEngineHarness, type EngineHarness } from '../helpers/engine.js';

const FINAL = ['delivered', 'cancelled', 'expired', 'aborted', 'rejected', 'failed', 'deleted', 'unknown'];
const done = (s: { to: Record<string, string> }) => Object.values(s.to).every((v) => FINAL.includes(v));

describe.each(ENGINES)('sending through the simulator on %s', (engineName) => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await createEngineHarness(engineName, { env: { SMSGW_SIM_DELAY_MS: '100' } });
  });
  afterAll(async () => h.stop());

  it('gives every last digit its decisions §8 outcome and completes the message', async () => {
    const to = Array.from({ length: 10 }, (_, d) => `+6149157015${d}`);
    const id = await h.send({ to });
    const s = await h.until(
      () => h.status(id),
      (v) => v.complete_at !== null,
    );
    expect(s.to).toEqual({
      '+61491570150': 'delivered',
      '+61491570151': 'delivered',
      '+61491570152': 'delivered',
      '+61491570153': 'delivered',
      '+61491570154': 'delivered',
      '+61491570155': 'failed',
      '+61491570156': 'rejected',
      '+61491570157': 'expired',
      '+61491570158': 'deleted',
      '+61491570159': 'unknown',
    });
    expect(s.status).toMatchObject({
      delivered: 5,
      failed: 1,
      rejected: 1,
      expired: 1,
      deleted: 1,
      unknown: 1,
      pending: 0,
      sent: 0,
    });
    // Nine reached the carrier; the rejected one did not.
    expect(s.balance_used).toBe(9);
    expect(Date.parse(String(s.complete_at))).toBeGreaterThanOrEqual(Date.parse(String(s.created_at)));
    const completed = await call(
      h,
      'GET',
      `/v1/sms/messages?completed=true&messageID.min=${id}&messageID.max=${id}`,
    );
    expect(completed.body.data).toHaveLength(1);
  });

  it('shows sent between the submit and the receipt', async () => {
    const slow = await createEngineHarness(engineName, { env: { SMSGW_SIM_DELAY_MS: '1500' } });
    try {
      const id = await slow.send({ to: ['+61491570150'] });
      const s = await slow.until(
        () => slow.status(id),
        (v) => v.to['+61491570150'] === 'sent',
      );
      expect(s.complete_at).toBeNull();
      expect(
        (await call(slow, 'GET', `/v1/sms/messages?completed=false`)).body.data.map(
          (m: { messageID: number }) => m.messageID,
        ),
      ).toContain(id);
      await slow.until(
        () => slow.status(id),
        (v) => v.to['+61491570150'] === 'delivered',
      );
    } finally {
      await slow.stop();
    }
  });

  it('multi-part messages are charged parts x recipients and delivered', async () => {
    const id = await h.send({ to: ['+61491570150', '+61491570151'], body: 'x'.repeat(400) });
    const s = await h.until(() => h.status(id), done);
    expect(s.num_parts).toBe(3);
    expect(s.status.delivered).toBe(2);
    expect(s.balance_used).toBe(6);
  });

  it('waits for a future send_at, then sends', async () => {
    const sendAt = new Date(Date.now() + 1500).toISOString();
    const id = await h.send({ to: ['+61491570150'], send_at: sendAt });
    await new Promise((r) => setTimeout(r, 300));
    expect((await h.status(id)).to['+61491570150']).toBe('pending');
    const s = await h.until(() => h.status(id), done);
    expect(s.to['+61491570150']).toBe('delivered');
  });

  it('holds a paused message until PATCH {"paused": false}', async () => {
    const id = await h.send({ to: ['+61491570150', '+61491570151'], paused: true });
    await new Promise((r) => setTimeout(r, 400));
    expect((await h.status(id)).status.pending).toBe(2);
    const released = await call(h, 'PATCH', `/v1/sms/message/${id}`, { paused: false });
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({
      messageID: id,
      paused: false,
      to: ['+61491570150', '+61491570151'],
    });
    const s = await h.until(() => h.status(id), done);
    expect(s.status.delivered).toBe(2);
    // Nothing can change any more.
    const again = await call(h, 'PATCH', `/v1/sms/message/${id}`, { paused: true });
    expect(again.status).toBe(403);
    expect(again.body).toMatchObject({ type: 'VAL_ILLEGAL', arguement: 'paused' });
    expect((await call(h, 'PATCH', `/v1/sms/message/${id}`, { paused: false })).status).toBe(403);
  });

  it('refuses to release a paused message whose recipients all ended while it was paused', async () => {
    const id = await h.send({ to: ['+61491570150', '+61491570151'], paused: true });
    const cancelled = await call(h, 'DELETE', `/v1/sms/message/${id}`);
    expect(cancelled.body.to).toEqual({ '+61491570150': 'cancelled', '+61491570151': 'cancelled' });
    const release = await call(h, 'PATCH', `/v1/sms/message/${id}`, { paused: false });
    expect(release.status).toBe(403);
    expect(release.body).toMatchObject({ type: 'VAL_ILLEGAL', arguement: 'paused' });
  });

  it('PATCH {"paused": true} pauses a scheduled message', async () => {
    const id = await h.send({ to: ['+61491570150'], send_at: new Date(Date.now() + 800).toISOString() });
    const paused = await call(h, 'PATCH', `/v1/sms/message/${id}`, { paused: true });
    expect(paused.body.paused).toBe(true);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await h.status(id)).to['+61491570150']).toBe('pending');
    await call(h, 'PATCH', `/v1/sms/message/${id}`, { paused: false });
    await h.until(() => h.status(id), done);
  });

  it('PATCH validates its body and scope', async () => {
    const id = await h.send({ to: ['+61491570150'], paused: true });
    expect((await call(h, 'PATCH', `/v1/sms/message/${id}`, {})).body).toMatchObject({
      type: 'ARG_MISSING',
      arguement: 'paused',
    });
    expect((await call(h, 'PATCH', `/v1/sms/message/${id}`, { paused: 'no' })).status).toBe(403);
    const other = await h.newAccount();
    expect((await call(h, 'PATCH', `/v1/sms/message/${id}`, { paused: false }, other.key)).status).toBe(404);
    expect((await call(h, 'DELETE', `/v1/sms/message/${id}`, undefined, other.key)).status).toBe(404);
    expect((await call(h, 'PATCH', `/v1/sms/message/999999`, { paused: false })).status).toBe(404);
    await call(h, 'DELETE', `/v1/sms/message/${id}`);
  });

  it('DELETE cancels recipients not yet sent and answers with status fields', async () => {
    const id = await h.send({
      to: ['+61491570150', '+61491570151'],
      send_at: new Date(Date.now() + 60_000).toISOString(),
    });
    const r = await call(h, 'DELETE', `/v1/sms/message/${id}`);
    expect(r.status).toBe(200);
    expect(r.body.to).toEqual({ '+61491570150': 'cancelled', '+61491570151': 'cancelled' });
    expect(r.body.status).toMatchObject({ cancelled: 2, pending: 0 });
    const s = await h.status(id);
    expect(s.complete_at).not.toBeNull();
    // The message stays readable, and a second cancel changes nothing.
    expect((await call(h, 'DELETE', `/v1/sms/message/${id}`)).body.status.cancelled).toBe(2);
  });

  it('DELETE leaves recipients that already reached the carrier alone', async () => {
    const id = await h.send({ to: ['+61491570150'] });
    await h.until(() => h.status(id), done);
    const r = await call(h, 'DELETE', `/v1/sms/message/${id}`);
    expect(r.body.to).toEqual({ '+61491570150': 'delivered' });
  });

  it('expires recipients not sent by expires_at, also while paused', async () => {
    const id = await h.send({ to: ['+61491570150'], paused: true, ttl: 1 });
    const s = await h.until(() => h.status(id), done, 10_000);
    expect(s.to['+61491570150']).toBe('expired');
    expect(s.balance_used).toBe(0);
  });

  it('refunds reserved credit for recipients that never reached the carrier', async () => {
    const { account, key } = await h.newAccount({ credits: 100 });
    // 2 parts each: 0 delivered (charged), 6 rejected (refund), 3 cancelled later (refund).
    const body = 'x'.repeat(200);
    const a = await h.send({ to: ['+61491570150', '+61491570156'], body }, key);
    await h.until(() => h.status(a, key), done);
    const b = await h.send(
      { to: ['+61491570153'], body, send_at: new Date(Date.now() + 60_000).toISOString() },
      key,
    );
    expect((await h.store.accounts.get(account.id))?.credits).toBe(100 - 4 + 2 - 2);
    await call(h, 'DELETE', `/v1/sms/message/${b}`, undefined, key);
    expect((await h.store.accounts.get(account.id))?.credits).toBe(98);
    expect((await h.status(a, key)).balance_used).toBe(2);
    expect((await h.status(b, key)).balance_used).toBe(0);
  });
});
