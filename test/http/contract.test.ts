import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { Contract, type Exchange } from '../helpers/contract.js';

/** The contract check itself: what it lets through and what it catches. */
describe('the contract check', () => {
  let t: TestApp;
  let contract: Contract;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    contract = new Contract((await call(t, 'GET', '/v1/openapi.json', undefined, null)).body);
  });
  afterAll(async () => t.close());

  const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-1' };
  const exchange = (over: Partial<Exchange>): Exchange => ({
    method: 'POST',
    path: '/v1/sms/message',
    status: 201,
    headers: json,
    body: JSON.stringify({ messageID: 1, num_parts: 1, num_recipients: 2 }),
    ...over,
  });

  it('passes an answer that matches its operation and status', () => {
    expect(contract.check(exchange({}))).toEqual([]);
    expect(
      contract.check(
        exchange({
          method: 'GET',
          path: '/v1/nope',
          status: 404,
          body: JSON.stringify({ status_code: 404, status_msg: 'Not Found', info: 'No such path' }),
        }),
      ),
    ).toEqual([]);
  });

  it.each([
    [
      'a field of the wrong type',
      { body: JSON.stringify({ messageID: '1', num_parts: 1, num_recipients: 2 }) },
    ],
    ['a missing field', { body: JSON.stringify({ messageID: 1, num_parts: 1 }) }],
    ['a status the operation does not document', { status: 418 }],
    [
      "Fastify's own error body",
      { status: 500, body: JSON.stringify({ statusCode: 500, code: 'FST_ERR_FAILED_ERROR_SERIALIZATION' }) },
    ],
    ['a body that is not JSON', { body: 'Created' }],
    ['another content type', { headers: { 'content-type': 'text/plain' } }],
    ['a path outside the document that is not a 404', { path: '/v1/sms', status: 200 }],
    [
      'an error body with a status_code that differs',
      {
        status: 400,
        body: JSON.stringify({
          status_code: 403,
          status_msg: 'Bad Request',
          error: 'x',
          type: 'ARG_MISSING',
          arguement: null,
        }),
      },
    ],
    ['an answer without x-request-id', { headers: { 'content-type': 'application/json' } }],
    [
      'a 429 without Retry-After',
      { status: 429, body: JSON.stringify({ status_code: 429, status_msg: 'Too Many Requests' }) },
    ],
    [
      'OPTIONS that lists other methods',
      { method: 'OPTIONS', status: 200, headers: { allow: 'GET, OPTIONS' }, body: '["GET","OPTIONS"]' },
    ],
    [
      'a 405 without the Allow header',
      {
        method: 'PUT',
        status: 405,
        body: JSON.stringify({
          status_code: 405,
          status_msg: 'Method Not Allowed',
          Allow: ['POST', 'OPTIONS'],
        }),
      },
    ],
  ])('catches %s', (_what, over) => {
    expect(contract.check(exchange(over))).not.toEqual([]);
  });
});
