import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCleaner, type Cleaner } from '../../src/app/cleaner.js';
import type { Status } from '../../src/domain/status.js';
import { applyChanges } from '../../src/store/transitions.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

const DAY = 86_400_000;

/** decisions §15 (retention) and §14 (24-hour idempotency keys): the background cleaner. */
describe.each(ENGINES)('the cleaner on %s', (engine) => {
  let t: TestApp;
  let cleaner: Cleaner;
  beforeAll(async () => {
    t = await createTestApp(engine);
    cleaner = startCleaner({
      store: t.store,
      retentionMs: 7 * DAY,
      now: () => t.clock.now,
      logger: pino({ level: 'silent' }),
      intervalMs: 3_600_000,
    });
  });
  afterAll(async () => {
    await cleaner.stop();
    await t.close();
  });
  const db = () => t.db.conn.db;

  const send = async (to: string[]) => {
    const r = await call(t, 'POST', '/v1/sms/message', { to, from: 'Acme', body: 'retention' });
    expect(r.status).toBe(201);
    return r.body.messageID as number;
  };
  const recipientsOf = async (messageId: number) =>
    db().selectFrom('recipients').select(['id', 'msisdn']).where('message_id', '=', messageId).execute();
  const move = async (messageId: number, to: Status, only?: string) => {
    const rows = (await recipientsOf(messageId)).filter((r) => only === undefined || r.msisdn === only);
    await db()
      .transaction()
      .execute((tx) =>
        applyChanges(
          tx,
          t.db.conn.dialect,
          rows.map((r) => ({ recipientId: r.id, to })),
          t.clock.now,
        ),
      );
  };
  /** What the engine leaves behind for a sent recipient: a submit attempt and a part per carrier id. */
  const sendingHistory = async (messageId: number) => {
    for (const r of await recipientsOf(messageId)) {
      await db()
        .insertInto('submit_attempts')
        .values({
          recipient_id: r.id,
          connector: 'simulator',
          worker: 'w',
          started_at: t.clock.now,
          finished_at: t.clock.now,
          outcome: 'accepted',
          detail: null,
        })
        .execute();
      await db()
        .insertInto('recipient_parts')
        .values({
          connector: 'simulator',
          carrier_id: `c${r.id}`,
          recipient_id: r.id,
          part: 1,
          state: 'DELIVRD',
          state_at: t.clock.now,
        })
        .execute();
    }
  };
  const webhook = async (messageId: number, kind: 'delivery_report' | 'inbound', finished: boolean) => {
    const row = await db()
      .insertInto('webhook_deliveries')
      .values({
        webhook_id: `msg_${kind}_${messageId}_${t.clock.now}`,
        account_id: t.account.id,
        kind,
        message_id: messageId,
        url: 'https://example.com/hook',
        origin: 'https://example.com',
        payload: '{}',
        state: finished ? 'delivered' : 'pending',
        next_attempt_at: t.clock.now,
        created_at: t.clock.now,
        completed_at: finished ? t.clock.now : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('webhook_attempts')
      .values({
        delivery_id: row.id,
        attempted_at: t.clock.now,
        duration_ms: 5,
        status: finished ? 200 : 503,
        error: null,
        response_excerpt: null,
      })
      .execute();
    return row.id;
  };
  const inbound = async (completed: boolean) =>
    (
      await db()
        .insertInto('inbound_messages')
        .values({
          account_id: t.account.id,
          number_id: null,
          sender: '+61491570150',
          recipient: '+61491570999',
          body: 'hi',
          ref: null,
          received_at: t.clock.now,
          completed_at: completed ? t.clock.now : null,
          connector: null,
          created_at: t.clock.now,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const exists = async (table: 'messages' | 'inbound_messages' | 'webhook_deliveries', id: number) =>
    (await db().selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  const count = async (
    table: 'recipients' | 'recipient_parts' | 'submit_attempts' | 'webhook_attempts' | 'recipient_numbers',
  ) =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('deletes what is finished and older than SMSGW_RETENTION, and nothing else', async () => {
    // Eight days ago.
    const done = await send(['+61491570150', '+61491570151']);
    await move(done, 'sent');
    await sendingHistory(done);
    await move(done, 'delivered');
    const doneReport = await webhook(done, 'delivery_report', true);
    const stillSending = await send(['+61491570160', '+61491570161']);
    await move(stillSending, 'sent');
    await move(stillSending, 'delivered', '+61491570160');
    const reportPending = await send(['+61491570170']);
    await move(reportPending, 'cancelled');
    const pendingReport = await webhook(reportPending, 'delivery_report', false);
    const oldInbound = await inbound(true);
    const inboundWebhookPending = await inbound(false);
    t.clock.now += 8 * DAY;
    // Recent.
    const recent = await send(['+61491570180']);
    await move(recent, 'cancelled');
    const recentInbound = await inbound(true);

    const before = { parts: await count('recipient_parts'), attempts: await count('submit_attempts') };
    // PostgreSQL keeps the numbers of a message's recipients apart (Dialect.numbersApart).
    const numbersApart = t.db.conn.dialect.numbersApart;
    const numbersBefore = numbersApart ? await count('recipient_numbers') : 0;
    const pass = await cleaner.runOnce();
    // The finished report went with its message; no other delivery is old enough.
    expect(pass).toMatchObject({ messages: 1, inbound: 1, deliveries: 0 });

    expect(await exists('messages', done)).toBe(false);
    expect(await recipientsOf(done)).toEqual([]);
    expect(await exists('webhook_deliveries', doneReport)).toBe(false);
    expect(await count('recipient_parts')).toBe(before.parts - 2);
    expect(await count('submit_attempts')).toBe(before.attempts - 2);
    if (numbersApart) expect(await count('recipient_numbers')).toBe(numbersBefore - 2);
    // Kept: a recipient still sent; a report still to send; anything recent.
    expect(await exists('messages', stillSending)).toBe(true);
    expect(await exists('messages', reportPending)).toBe(true);
    expect(await exists('webhook_deliveries', pendingReport)).toBe(true);
    expect(await exists('messages', recent)).toBe(true);
    expect(await exists('inbound_messages', oldInbound)).toBe(false);
    expect(await exists('inbound_messages', inboundWebhookPending)).toBe(true);
    expect(await exists('inbound_messages', recentInbound)).toBe(true);

    // A deleted message reads as any unknown one: 404.
    for (const path of [`/v1/sms/message/${done}`, `/v1/sms/message/${done}/meta,status`]) {
      const r = await call(t, 'GET', path);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ status_code: 404, status_msg: 'Not Found' });
    }
    expect((await call(t, 'GET', `/v1/sms/inbound/${oldInbound}`)).status).toBe(404);

    // Once its report is given up on, the message goes too.
    await db()
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', completed_at: t.clock.now - 8 * DAY })
      .where('id', '=', pendingReport)
      .execute();
    expect((await cleaner.runOnce()).messages).toBe(1);
    expect(await exists('messages', reportPending)).toBe(false);
    expect(await exists('webhook_deliveries', pendingReport)).toBe(false);
  });

  it('deletes finished webhook deliveries past retention even when their message stays', async () => {
    const message = await send(['+61491570190']);
    const delivered = await webhook(message, 'delivery_report', true);
    t.clock.now += 8 * DAY;
    const pass = await cleaner.runOnce();
    expect(pass.deliveries).toBeGreaterThanOrEqual(1);
    expect(await exists('webhook_deliveries', delivered)).toBe(false);
    expect(await exists('messages', message)).toBe(true);
  });

  it('takes the jobs still queued for a deleted message with it', async () => {
    const expiresAt = new Date(t.clock.now + 30 * DAY).toISOString();
    const r = await call(t, 'POST', '/v1/sms/message', {
      to: ['+61491570191'],
      from: 'Acme',
      body: 'x',
      expires_at: expiresAt,
    });
    const message = r.body.messageID as number;
    await move(message, 'sent');
    await move(message, 'delivered');
    const jobs = () => db().selectFrom('outbox').select('kind').where('subject_id', '=', message).execute();
    // Delivered long before its expires_at: the expire job waits for a time that has not come.
    expect(await jobs()).toEqual([{ kind: 'expire' }]);
    t.clock.now += 8 * DAY;
    expect((await cleaner.runOnce()).messages).toBeGreaterThanOrEqual(1);
    expect(await exists('messages', message)).toBe(false);
    expect(await jobs()).toEqual([]);
  });

  it('works through more than one batch', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 230; i++) {
      const id = await send([`+614915${String(71000 + i)}`]);
      await move(id, 'cancelled');
      ids.push(id);
    }
    t.clock.now += 8 * DAY;
    expect((await cleaner.runOnce()).messages).toBe(230);
    const left = await db().selectFrom('messages').select('id').where('id', 'in', ids).execute();
    expect(left).toEqual([]);
  });

  it('deletes idempotency keys older than 24 hours', async () => {
    const body = { to: ['+61491570150'], from: 'Acme', body: 'once' };
    const post = (key: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/sms/message',
        headers: {
          authorization: `Bearer ${t.key}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        payload: JSON.stringify(body),
      });
    await post('old-key');
    t.clock.now += DAY + 1;
    await post('new-key');
    expect((await cleaner.runOnce()).idempotencyKeys).toBe(1);
    const keys = await db().selectFrom('idempotency_keys').select('key').execute();
    expect(keys.map((k) => k.key)).toEqual(['new-key']);
  });
});

describe('the cleaner with SMSGW_RETENTION off', () => {
  it('keeps every message, and still expires idempotency keys', async () => {
    const t = await createTestApp('sqlite');
    const cleaner = startCleaner({
      store: t.store,
      retentionMs: null,
      now: () => t.clock.now,
      logger: pino({ level: 'silent' }),
    });
    try {
      const sent = await call(t, 'POST', '/v1/sms/message', {
        to: ['+61491570150'],
        from: 'Acme',
        body: 'x',
      });
      await t.store.engine.cancel(sent.body.messageID, t.clock.now);
      t.clock.now += 365 * DAY;
      expect(await cleaner.runOnce()).toEqual({ messages: 0, inbound: 0, deliveries: 0, idempotencyKeys: 0 });
      expect((await call(t, 'GET', `/v1/sms/message/${sent.body.messageID}`)).status).toBe(200);
    } finally {
      await cleaner.stop();
      await t.close();
    }
  });
});
