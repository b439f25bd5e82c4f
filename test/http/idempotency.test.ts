import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/app/idempotent-send.js';
import { buildApp } from '../../src/http/app.js';
import { IDEMPOTENCY_LEASE_MS, IdempotencyClaimLostError } from '../../src/store/idempotency.js';
import { createStore } from '../../src/store/store.js';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { messageInput } from '../helpers/messages.js';

const MESSAGE = { to: ['+61491570156', '+61491570157'], from: 'Acme', body: 'Your code is 1234' };

/** decisions §14: Idempotency-Key on POST /sms/message. */
describe.each(ENGINES)('Idempotency-Key on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());

  const post = async (key: string | null, body: unknown, apiKey = t.key, app = t.app) => {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/sms/message',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        ...(key !== null && { 'idempotency-key': key }),
      },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return {
      status: r.statusCode,
      text: r.body,
      json: r.json() as Record<string, unknown>,
      headers: r.headers,
    };
  };
  const messageCount = async (accountId = t.account.id) =>
    Number(
      (
        await t.db.conn.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('answers a repeat with an equal JSON body with the first answer, and sends nothing', async () => {
    const { account, key } = await t.newAccount({ credits: 100 });
    const first = await post('order-1', MESSAGE, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Equal JSON: other key order and spacing.
    const reordered = `{ "body": "Your code is 1234",  "from": "Acme", "to": ["+61491570156", "+61491570157"] }`;
    for (const body of [MESSAGE, reordered]) {
      const again = await post('order-1', body, key);
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.json.messageID).toBe(first.json.messageID);
      expect(again.headers['idempotent-replayed']).toBe('true');
    }
    expect(await messageCount(account.id)).toBe(1);
    // Credit was reserved once: 2 recipients x 1 part.
    expect((await t.store.accounts.get(account.id))?.credits).toBe(98);
  });

  it('refuses the key with a different body: 422', async () => {
    expect((await post('order-2', MESSAGE)).status).toBe(201);
    const other = await post('order-2', { ...MESSAGE, body: 'Another text' });
    expect(other.status).toBe(422);
    expect(other.json).toEqual({
      status_code: 422,
      status_msg: 'Unprocessable Entity',
      type: 'IDEMPOTENCY_MISMATCH',
      arguement: 'Idempotency-Key',
    });
  });

  it('answers 409 while the first request with the key runs', async () => {
    // Another node's request holds the key: claimed, not yet completed.
    const claim = await t.store.idempotency.claim(t.account.id, 'order-3', fingerprint(MESSAGE), t.clock.now);
    expect(claim.kind).toBe('claimed');
    const busy = await post('order-3', MESSAGE);
    expect(busy.status).toBe(409);
    expect(busy.json).toEqual({
      status_code: 409,
      status_msg: 'Conflict',
      type: 'IDEMPOTENCY_IN_PROGRESS',
      arguement: 'Idempotency-Key',
    });
  });

  it('lets a retry send once the holder of the key has gone silent past its lease', async () => {
    const before = await messageCount();
    await t.store.idempotency.claim(t.account.id, 'order-4', fingerprint(MESSAGE), t.clock.now);
    t.clock.now += IDEMPOTENCY_LEASE_MS + 1;
    const retry = await post('order-4', MESSAGE);
    expect(retry.status).toBe(201);
    expect(await messageCount()).toBe(before + 1);
  });

  it('creates one message when the same key arrives several times at once', async () => {
    const before = await messageCount();
    const answers = await Promise.all(Array.from({ length: 5 }, () => post('order-5', MESSAGE)));
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.json.messageID)).size).toBe(1);
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    expect(await messageCount()).toBe(before + 1);
  });

  it('keeps only successful answers: a refused request may be corrected and retried with the key', async () => {
    const bad = await post('order-6', { ...MESSAGE, to: ['12'] });
    expect(bad.status).toBe(403);
    const fixed = await post('order-6', MESSAGE);
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();

    const tooLong = await post('order-7', { ...MESSAGE, body: 'x'.repeat(200), num_parts_max: 1 });
    expect(tooLong.status).toBe(200);
    const allowed = await post('order-7', { ...MESSAGE, body: 'x'.repeat(200), num_parts_max: 2 });
    expect(allowed.status).toBe(201);

    const poor = await t.newAccount({ credits: 1 });
    expect((await post('order-8', MESSAGE, poor.key)).json.type).toBe('CREDIT_INSUFFICIENT');
    await t.app.inject({
      method: 'PATCH',
      url: `/admin/v1/accounts/${poor.account.id}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ add_credits: 10 }),
    });
    expect((await post('order-8', MESSAGE, poor.key)).status).toBe(201);
  });

  it('keeps keys per account', async () => {
    const other = await t.newAccount();
    const mine = await post('shared-key', MESSAGE);
    const theirs = await post('shared-key', MESSAGE, other.key);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.json.messageID).not.toBe(mine.json.messageID);
  });

  it('forgets a key after 24 hours', async () => {
    const first = await post('order-9', MESSAGE);
    t.clock.now += 24 * 60 * 60 * 1000 + 1;
    const later = await post('order-9', { ...MESSAGE, body: 'a day later' });
    expect(later.status).toBe(201);
    expect(later.json.messageID).not.toBe(first.json.messageID);
  });

  it('holds across nodes: another server on the same database replays the answer', async () => {
    const first = await post('order-10', MESSAGE);
    const otherNode = await buildApp({
      config: t.config,
      store: createStore(t.db.conn),
      logger: pino({ level: 'silent' }),
      now: () => t.clock.now,
    });
    try {
      const again = await post('order-10', MESSAGE, t.key, otherNode);
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.headers['idempotent-replayed']).toBe('true');
    } finally {
      await otherNode.close();
    }
  });

  it('refuses a malformed key with 403 VAL_ILLEGAL', async () => {
    for (const bad of ['k'.repeat(256), 'tab\there']) {
      const r = await post(bad, MESSAGE);
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ type: 'VAL_ILLEGAL', arguement: 'Idempotency-Key' });
    }
    expect((await post('k'.repeat(255), MESSAGE)).status).toBe(201);
    expect((await post(' spaces and !"#$%&()*+,./:;<=>?@[]^_`{|}~ ', MESSAGE)).status).toBe(201);
  });

  it('stores no message when the claim was taken over before the commit', async () => {
    const claim = await t.store.idempotency.claim(t.account.id, 'order-11', 'fp', t.clock.now);
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    // Its lease runs out and a retry takes the key over.
    const retry = await t.store.idempotency.claim(
      t.account.id,
      'order-11',
      'fp',
      t.clock.now + IDEMPOTENCY_LEASE_MS + 1,
    );
    expect(retry.kind).toBe('claimed');
    const before = await messageCount();
    const late = {
      ...messageInput(t.account.id, ['+61491570156']),
      idempotency: { key: 'order-11', token: claim.token, answer: () => ({ status: 201, body: '{}' }) },
    };
    await expect(t.store.messages.createMany([late])).rejects.toBeInstanceOf(IdempotencyClaimLostError);
    expect(await messageCount()).toBe(before);
  });
});
