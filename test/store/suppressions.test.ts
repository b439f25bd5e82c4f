import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Status } from '../../src/domain/status.js';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createReportSink } from '../../src/webhooks/report-sink.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput, msisdns } from '../helpers/messages.js';

describe.each(ENGINES)('the suppression store and its uses on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  const entered = new Map<Status, number>();
  beforeAll(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn, {
      onEntered: (counts) => {
        for (const [status, n] of counts) entered.set(status, (entered.get(status) ?? 0) + n);
      },
    });
  });
  afterAll(async () => db.drop());

  it('finds the suppressed among more recipients than one statement takes, per account', async () => {
    const a = await createStoreAccount(store, 'a');
    const b = await createStoreAccount(store, 'b');
    const listed = msisdns(1500, 0).filter((_, i) => i % 3 === 0);
    await store.suppressions.addMany(a.id, [...listed, ...listed.slice(0, 10)], 'import', 5);
    await store.suppressions.addMany(b.id, msisdns(5, 0), 'import', 5);
    const found = await store.suppressions.suppressedAmong(a.id, msisdns(1500, 0));
    expect([...found].sort()).toEqual([...listed].sort());
    expect((await store.suppressions.suppressedAmong(b.id, msisdns(1500, 0))).size).toBe(5);
    // Adding again keeps the first entry.
    expect(await store.suppressions.add(a.id, listed[0]!, 'manual', 9)).toEqual({
      msisdn: listed[0],
      reason: 'import',
      createdAt: 5,
    });
  });

  it('stores suppressed recipients aborted (421) in the order given, counted, and queues no work for them', async () => {
    const account = await createStoreAccount(store, 'c');
    entered.clear();
    const to = msisdns(4, 100);
    const [created] = await store.messages.createMany([
      { ...messageInput(account.id, to), suppressed: new Set([to[1]!, to[3]!]) },
    ]);
    const id = created?.kind === 'created' ? created.id : 0;
    expect(await store.messages.recipientStatuses(id)).toEqual([
      { msisdn: to[0], status: 'submitted', statusCode: 110 },
      { msisdn: to[1], status: 'aborted', statusCode: 421 },
      { msisdn: to[2], status: 'submitted', statusCode: 110 },
      { msisdn: to[3], status: 'aborted', statusCode: 421 },
    ]);
    expect(Object.fromEntries(entered)).toEqual({ submitted: 2, aborted: 2 });
    expect(await store.messages.get(account.id, id)).toMatchObject({ numRecipients: 4, openRecipients: 2 });
  });

  it('reports a message whose every recipient is suppressed as complete at once', async () => {
    const reporting = createStore(db.conn, { transitionSink: createReportSink() });
    const account = await createStoreAccount(store, 'e');
    const base = messageInput(account.id, msisdns(2, 200));
    const [created] = await reporting.messages.createMany([
      {
        ...base,
        message: { ...base.message, deliveryReport: 'summary', callbackUrl: 'http://127.0.0.1:9/dlr' },
        suppressed: new Set(msisdns(2, 200)),
      },
    ]);
    const id = created?.kind === 'created' ? created.id : 0;
    const deliveries = await db.conn.db
      .selectFrom('webhook_deliveries')
      .select(['payload'])
      .where('message_id', '=', id)
      .execute();
    expect(deliveries).toHaveLength(1);
    const payload = JSON.parse(deliveries[0]!.payload);
    expect(payload).toMatchObject({
      messageID: id,
      callback_type: 'summary_delivery_report',
      balance_used: 0,
    });
    expect(payload.statuses).toMatchObject({ aborted: 2, pending: 0, submitted: 0 });
  });

  it('honours STOP and START arriving from a carrier through the engine, answering from the number', async () => {
    const account = await createStoreAccount(store, 'd');
    await store.accounts.update(account.id, { optOutReply: 'Bye' });
    await store.accounts.addNumber({
      accountId: account.id,
      msisdn: '+61400000009',
      ref: null,
      inboundUrl: null,
      createdAt: 0,
    });
    // A message accepted before the STOP, waiting for its send_at.
    await store.messages.createMany([messageInput(account.id, ['+61491570001'], { sendAt: 1_000 })]);
    entered.clear();
    const arrive = (from: string, body: string, at: number) =>
      store.engine.tick((ops) =>
        ops.storeInbound([{ from, to: '61400000009', body, receivedAt: at, connector: 'c' }], at),
      );
    await arrive('61491570001', 'Stop', 10);
    await arrive('61491570002', 'STOP', 11);
    await arrive('61491570002', 'start', 12);
    const listed = await store.suppressions.list(account.id, 10, 0);
    expect(listed.rows).toEqual([{ msisdn: '+61491570001', reason: 'stop', createdAt: 10 }]);
    // Three answers, each a submitted recipient counted in the transaction that stored the keyword,
    // and the waiting recipient aborted by the STOP.
    expect(Object.fromEntries(entered)).toEqual({ submitted: 3, aborted: 1 });
    const replies = await store.messages.list(account.id, { createdMin: 0, sort: [], limit: 10, offset: 0 });
    expect(replies.rows.map((r) => [r.sender, r.body])).toEqual([
      ['+61400000009', 'Bye'],
      ['+61400000009', 'Bye'],
      ['+61400000009', 'Bye'],
      ['Acme', 'hi'],
    ]);
    const waiting = await store.messages.recipientStatuses(replies.rows[3]!.id);
    expect(waiting).toEqual([{ msisdn: '+61491570001', status: 'aborted', statusCode: 421 }]);
  });
});
