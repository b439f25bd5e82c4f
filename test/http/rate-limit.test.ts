import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

/** decisions §13: per-account rate_limit, 429 with Retry-After. The app's clock is the test's. */
describe.each(ENGINES)('rate_limit on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => t.close());

  const limited = async (rateLimit: number) => t.newAccount({ rateLimit });
  const list = (key: string) => call(t, 'GET', '/v1/sms/messages', undefined, key);

  it('refuses requests over the limit with 429, the seed body and Retry-After', async () => {
    const { key } = await limited(3);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await list(key)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await list(key);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status_code: 429, status_msg: 'Too Many Requests' });
    expect(refused.headers['retry-after']).toBe('1');
  });

  it('lets requests through again as the second passes, at the configured rate', async () => {
    const { key } = await limited(2);
    expect((await list(key)).status).toBe(200);
    expect((await list(key)).status).toBe(200);
    expect((await list(key)).status).toBe(429);
    t.clock.now += 500; // one request's worth
    expect((await list(key)).status).toBe(200);
    expect((await list(key)).status).toBe(429);
    t.clock.now += 10_000; // never more than a second's worth saved up
    expect((await list(key)).status).toBe(200);
    expect((await list(key)).status).toBe(200);
    expect((await list(key)).status).toBe(429);
  });

  it('counts every API request of the account, and each account on its own', async () => {
    const a = await limited(2);
    const b = await limited(2);
    const send = (key: string) =>
      call(t, 'POST', '/v1/sms/message', { to: ['+61491570156'], from: 'Acme', body: 'hi' }, key);
    expect((await send(a.key)).status).toBe(201);
    expect((await list(a.key)).status).toBe(200);
    expect((await send(a.key)).status).toBe(429);
    expect((await send(b.key)).status).toBe(201);
  });

  it('never limits an account without rate_limit', async () => {
    for (let i = 0; i < 50; i++) expect((await list(t.key)).status).toBe(200);
  });

  it('checks the key first: a wrong key is 401, never 429', async () => {
    const { key } = await limited(1);
    expect((await list(key)).status).toBe(200);
    expect((await list(key)).status).toBe(429);
    expect((await list('not-a-key')).status).toBe(401);
    // OPTIONS needs no key and is never counted.
    expect((await call(t, 'OPTIONS', '/v1/sms/messages', undefined, key)).status).toBe(200);
  });

  it('applies a changed rate_limit at once', async () => {
    const { account, key } = await limited(1);
    expect((await list(key)).status).toBe(200);
    expect((await list(key)).status).toBe(429);
    await call(t, 'PATCH', `/admin/v1/accounts/${account.id}`, { rate_limit: null }, ADMIN_TOKEN);
    for (let i = 0; i < 5; i++) expect((await list(key)).status).toBe(200);
  });
});
