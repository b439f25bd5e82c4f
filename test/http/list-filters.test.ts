import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Status } from '../../src/domain/status.js';
import { applyChanges } from '../../src/store/transitions.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { messageInput, msisdns } from '../helpers/messages.js';

/** decisions §16: `to=` and `status=` on GET /sms/messages. */
describe.each(ENGINES)('outbound list filters on %s', (engine) => {
  let t: TestApp;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    t = await createTestApp(engine);
    const send = async (name: string, to: string[], extra: Record<string, unknown> = {}) => {
      const r = await call(t, 'POST', '/v1/sms/message', { to, from: 'Acme', body: name, ...extra });
      expect(r.status).toBe(201);
      ids[name] = r.body.messageID;
      t.clock.now += 1000;
    };
    // Moves recipients the way the engine does: through the guarded transition of every change.
    const move = async (message: string, to: Status, msisdns?: string[]) => {
      const rows = await t.db.conn.db
        .selectFrom('recipients')
        .select(['id', 'msisdn'])
        .where('message_id', '=', ids[message]!)
        .execute();
      const chosen = rows.filter((r) => msisdns === undefined || msisdns.includes(r.msisdn));
      await t.db.conn.db.transaction().execute((tx) =>
        applyChanges(
          tx,
          t.db.conn.dialect,
          chosen.map((r) => ({ recipientId: r.id, to })),
          t.clock.now,
        ),
      );
    };
    await send('delivered-and-failed', ['+61491570150', '+61491570155']);
    await move('delivered-and-failed', 'sent');
    await move('delivered-and-failed', 'delivered', ['+61491570150']);
    await move('delivered-and-failed', 'failed', ['+61491570155']);
    await send('delivered', ['+61491570150']);
    await move('delivered', 'sent');
    await move('delivered', 'delivered');
    await send('half-sent', ['+61491570160', '+61491570161']);
    await move('half-sent', 'sent', ['+61491570160']);
    await send('submitted', ['+61491570170']);
    await send('pending', ['+61491570180'], { paused: true });
    await send('cancelled', ['+61491570190'], { paused: true });
    expect((await call(t, 'DELETE', `/v1/sms/message/${ids.cancelled}`)).status).toBe(200);
  });
  afterAll(async () => t.close());

  const list = async (query: string) => {
    const r = await call(t, 'GET', `/v1/sms/messages?${query}`);
    expect(r.status, query).toBe(200);
    return (r.body.data as { messageID: number }[]).map((m) => m.messageID);
  };
  const named = (...names: string[]) => names.map((n) => ids[n]!).sort((a, b) => b - a);

  it('to= lists the messages sent to that number, newest first', async () => {
    expect(await list('to=%2B61491570150')).toEqual(named('delivered', 'delivered-and-failed'));
    expect(await list('to=61491570160')).toEqual(named('half-sent'));
    // An unencoded + arrives as a space, read as + (decisions §5).
    expect(await list('to= 61491570155')).toEqual(named('delivered-and-failed'));
    expect(await list('to=%2B61400000000')).toEqual([]);
    // Messages not sent yet are found by their numbers too: paused, and cancelled while paused.
    expect(await list('to=%2B61491570180')).toEqual(named('pending'));
    expect(await list('to=%2B61491570190')).toEqual(named('cancelled'));
  });

  it.each([
    ['delivered', ['delivered', 'delivered-and-failed']],
    ['failed', ['delivered-and-failed']],
    ['cancelled', ['cancelled']],
    ['sent', ['half-sent']],
    ['submitted', ['half-sent', 'submitted']],
    ['pending', ['pending']],
    ['expired', []],
    ['unknown', []],
  ])('status=%s lists messages with at least one recipient in it', async (status, names) => {
    expect(await list(`status=${status}`)).toEqual(named(...names));
  });

  it('combines to= and status= with the other filters and sorts', async () => {
    expect(await list('to=%2B61491570150&status=failed')).toEqual(named('delivered-and-failed'));
    expect(await list('to=%2B61491570150&status=delivered&sort=messageID')).toEqual(
      named('delivered', 'delivered-and-failed').reverse(),
    );
    expect(await list('status=delivered&completed=true&limit=1')).toEqual(named('delivered'));
    expect(await list('status=submitted&completed=false&sort=created_at')).toEqual(
      named('half-sent', 'submitted').reverse(),
    );
    expect(await list(`status=delivered&messageID.max=${ids.delivered! - 1}`)).toEqual(
      named('delivered-and-failed'),
    );
  });

  it('refuses a malformed to= or an unknown status with the 400 body', async () => {
    for (const [query, argument] of [
      ['to=abc', 'to'],
      ['to=%2B61491570150&to=%2B61491570155', 'to'],
      ['status=done', 'status'],
      ['status=Delivered', 'status'],
    ] as const) {
      const r = await call(t, 'GET', `/v1/sms/messages?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body).toMatchObject({
        status_code: 400,
        status_msg: 'Bad Request',
        type: 'VAL_ILLEGAL',
        arguement: argument,
      });
    }
  });

  it('gives the same answers when a filter matches thousands of recipients', async () => {
    // Past the count where the list stops starting from the matching recipients and walks the
    // account's messages instead (SPARSE_MAX in src/store/message-filters.ts).
    const hot = '+61491579999';
    const busy = await t.newAccount();
    const created = await t.store.messages.createMany(
      Array.from({ length: 2_100 }, (_, i) => messageInput(busy.account.id, [hot], { body: `m${i}` })),
    );
    const bulk = await t.store.messages.createMany([messageInput(busy.account.id, msisdns(2_100, 500))]);
    const bulkId = bulk[0]!.kind === 'created' ? bulk[0]!.id : 0;
    const recipients = await t.db.conn.db
      .selectFrom('recipients')
      .select('id')
      .where('message_id', '=', bulkId)
      .execute();
    for (const to of ['submitted', 'sent', 'delivered'] as const) {
      await t.db.conn.db.transaction().execute((tx) =>
        applyChanges(
          tx,
          t.db.conn.dialect,
          recipients.map((r) => ({ recipientId: r.id, to })),
          t.clock.now,
        ),
      );
    }
    const page = async (query: string) => {
      const r = await call(t, 'GET', `/v1/sms/messages?created_at.min=0&${query}`, undefined, busy.key);
      expect(r.status).toBe(200);
      return r.body as { data: { messageID: number }[]; more_results: boolean };
    };
    const newest = created.map((c) => (c.kind === 'created' ? c.id : 0)).sort((a, b) => b - a);
    const byNumber = await page(`to=${encodeURIComponent(hot)}&limit=500`);
    expect(byNumber.data.map((m) => m.messageID)).toEqual(newest.slice(0, 500));
    expect(byNumber.more_results).toBe(true);
    expect((await page(`status=delivered`)).data.map((m) => m.messageID)).toEqual([bulkId]);
    expect((await page(`to=${encodeURIComponent(hot)}&status=delivered`)).data).toEqual([]);
  });

  it("never shows another account's messages", async () => {
    const other = await t.newAccount();
    const r = await call(t, 'GET', '/v1/sms/messages?to=%2B61491570150', undefined, other.key);
    expect(r.body.data).toEqual([]);
    const s = await call(t, 'GET', '/v1/sms/messages?status=delivered', undefined, other.key);
    expect(s.body.data).toEqual([]);
  });
});
