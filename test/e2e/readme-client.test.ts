import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components, paths } from '../../docs/openapi.js';
import { fetchChecked } from '../helpers/contract.js';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/process.js';

/**
 * The README's "Using the API" examples, run with a client generated from the OpenAPI
 * document (openapi-typescript's docs/openapi.d.ts and openapi-fetch), against a server
 * started as the README starts it: what a newcomer does, without a single cast.
 */

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

/** The JSON bodies of the README's curl examples (`-d '{…}'`), in order. */
const readmeBodies = [...README.matchAll(/-d '(\{[^']*\})'/g)].map((m) => JSON.parse(m[1]!));

const SEND: components['schemas']['SendSmsRequest'] = {
  to: ['+61491570156', '+61491570150'],
  from: 'Acme',
  body: 'Your code is 1234',
};
const SCHEDULE: components['schemas']['SendSmsRequest'] = {
  to: ['+61491570151'],
  from: 'Acme',
  body: 'Sale starts now',
  send_at: '2030-01-01 09:00:00',
  paused: true,
  ref: 'campaign-7',
  delivery_report: 'per_recipient_final',
  callbackURL: 'https://example.com/dlr',
};

describe('the README examples through a generated client', () => {
  let dir: string;
  let server: ServerProcess;
  let client: ReturnType<typeof createClient<paths>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'smsgw-readme-'));
    server = await startServerProcess(
      { SMSGW_BOOTSTRAP_KEY: 'my-secret-key', SMSGW_DATABASE_URL: `sqlite:${join(dir, 'smsgw.sqlite')}` },
      await freePort(),
    );
    client = createClient<paths>({
      baseUrl: new URL(server.baseUrl).origin,
      headers: { Authorization: 'Bearer my-secret-key' },
      fetch: fetchChecked,
    });
  });

  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('uses the bodies the README shows', () => {
    expect(readmeBodies).toContainEqual(SEND);
    expect(readmeBodies).toContainEqual(SCHEDULE);
    expect(readmeBodies).toContainEqual({ paused: false });
  });

  it('sends a message and reads its status until every recipient is final', async () => {
    const sent = await client.POST('/v1/sms/message', { body: SEND });
    expect(sent.response.status).toBe(201);
    if (sent.data === undefined || !('messageID' in sent.data))
      throw new Error('the message was not accepted');
    expect(sent.data).toEqual({ messageID: 1, num_parts: 1, num_recipients: 2 });
    const { messageID } = sent.data;

    const read = () =>
      client.GET('/v1/sms/message/{messageID}/{options}', {
        params: { path: { messageID, options: 'meta,status' } },
      });
    let message = (await read()).data;
    for (let tries = 0; message?.complete_at === null && tries < 100; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      message = (await read()).data;
    }
    // The simulated carrier decides by the last digit: 6 is rejected at submit, 0 delivered.
    expect(message).toMatchObject({
      messageID: 1,
      to: { '+61491570156': 'rejected', '+61491570150': 'delivered' },
      from: 'Acme',
      body: 'Your code is 1234',
      num_parts: 1,
      balance_used: 1,
      status: { rejected: 1, delivered: 1, pending: 0, submitted: 0, sent: 0 },
    });
    expect(message?.complete_at).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/));
  });

  it('schedules a paused message, releases it, cancels it and finds it in the list', async () => {
    const scheduled = await client.POST('/v1/sms/message', { body: SCHEDULE });
    if (scheduled.data === undefined || !('messageID' in scheduled.data)) throw new Error('not accepted');
    const messageID = scheduled.data.messageID;
    expect(messageID).toBe(2);

    const released = await client.PATCH('/v1/sms/message/{messageID}', {
      params: { path: { messageID } },
      body: { paused: false },
    });
    expect(released.data).toMatchObject({ messageID, paused: false, send_at: '2030-01-01T09:00:00.000Z' });

    const cancelled = await client.DELETE('/v1/sms/message/{messageID}', { params: { path: { messageID } } });
    expect(cancelled.data?.to).toEqual({ '+61491570151': 'cancelled' });
    expect(cancelled.data?.status.cancelled).toBe(1);

    const list = await client.GET('/v1/sms/messages', {
      params: { query: { ref: 'campaign-7', sort: ['-created_at'], limit: 10 } },
    });
    expect(list.data?.data.map((m) => m.messageID)).toEqual([messageID]);
    expect(list.data?.more_results).toBe(false);
  });

  it('gets the error bodies the document describes', async () => {
    const bad = await client.POST('/v1/sms/message', { body: { ...SEND, to: ['12'] } });
    expect(bad.response.status).toBe(403);
    expect(bad.error).toEqual({
      status_code: 403,
      status_msg: 'Forbidden',
      error: '12 is not a valid msisdn; use E.164 format such as +61491570156',
      type: 'VAL_ILLEGAL',
      arguement: 'to',
      bad_value: '12',
      info: '12 is not a valid msisdn; use E.164 format such as +61491570156',
    });
    const missing = await client.GET('/v1/sms/message/{messageID}', { params: { path: { messageID: 999 } } });
    expect(missing.error).toMatchObject({ status_code: 404, status_msg: 'Not Found' });
  });
});
