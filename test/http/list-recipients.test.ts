import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';

/**
 * The list's `to` arrays come from one query per page whose text depends only on the page size
 * (src/store/messages.ts recipientsOf): pages of every size must show each message's own
 * recipients, in the order they were given, exactly as a single read shows them.
 */
describe.each(ENGINES)('recipients in GET /v1/sms/messages on %s', (engine) => {
  let t: TestApp;
  let key: string;
  const sent: { id: number; to: string[] }[] = [];

  beforeAll(async () => {
    t = await createTestApp(engine);
    ({ key } = await t.newAccount());
    for (let i = 0; i < 7; i++) {
      // 1 to 3 recipients each, given out of numeric order.
      const to = Array.from({ length: (i % 3) + 1 }, (_, r) => `+614915701${String(90 - i * 3 - r)}`);
      t.clock.now += 1000;
      const r = await call(t, 'POST', '/v1/sms/message', { to, from: 'Acme', body: `m${i}` }, key);
      expect(r.status).toBe(201);
      sent.push({ id: r.body.messageID, to });
    }
  });
  afterAll(async () => t.close());

  it('every page size shows each message with its own recipients in order', async () => {
    const newestFirst = [...sent].reverse();
    for (let limit = 1; limit <= sent.length + 1; limit++) {
      for (let offset = 0; offset < sent.length; offset += limit) {
        const r = await call(t, 'GET', `/v1/sms/messages?limit=${limit}&offset=${offset}`, undefined, key);
        expect(r.status).toBe(200);
        const page = r.body.data.map((m: { messageID: number; to: string[] }) => ({
          id: m.messageID,
          to: m.to,
        }));
        expect(page).toEqual(newestFirst.slice(offset, offset + limit));
      }
    }
  });

  it('the list and a single read agree on to', async () => {
    const r = await call(t, 'GET', '/v1/sms/messages?sort=messageID', undefined, key);
    for (const m of r.body.data as { messageID: number; to: string[] }[]) {
      const single = await call(t, 'GET', `/v1/sms/message/${m.messageID}`, undefined, key);
      expect(m.to).toEqual(single.body.to);
    }
  });
});
