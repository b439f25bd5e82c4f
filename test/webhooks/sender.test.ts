import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery, DeliveryResult } from '../../src/store/webhooks.js';
import type { WebhookAttemptResult } from '../../src/webhooks/http-client.js';
import {
  createWebhookSender,
  nextStep,
  signingSecrets,
  type SenderLimits,
  type SenderOptions,
} from '../../src/webhooks/sender.js';
import { generateWebhookSecret } from '../../src/webhooks/sign.js';

/** The webhook sender over a scripted HTTP client: no database, no network. */

const secret = generateWebhookSecret();
let nextId = 0;
function delivery(origin: string, accountId = 1, retryAttempts = 0): ClaimedDelivery {
  const id = ++nextId;
  return {
    deliveryId: id,
    retryAttempts,
    webhookId: `msg_${id}`,
    accountId,
    kind: 'delivery_report',
    messageId: id,
    url: `${origin}/hook`,
    origin,
    payload: JSON.stringify({ n: id }),
    secrets: { current: secret, previous: null, previousUntil: null },
  };
}

const answer = (status: number | null): WebhookAttemptResult =>
  status === null
    ? { kind: 'retry', status: null, durationMs: 1, responseExcerpt: '', error: 'timeout' }
    : {
        kind: status < 300 ? 'accepted' : status === 429 || status >= 500 ? 'retry' : 'give_up',
        status,
        durationMs: 1,
        responseExcerpt: '',
      };

const LIMITS: SenderLimits = {
  perOrigin: 2,
  perAccount: 100,
  maxInFlight: 100,
  maxHeld: 1_000,
  maxHeldPerOrigin: 100,
};

/** A sender whose HTTP client is `post`; outcomes collect in `results`, posts in `posted`. */
function harness(post: (url: string) => Promise<WebhookAttemptResult>, o: Partial<SenderOptions> = {}) {
  const results: DeliveryResult[] = [];
  const posted: { url: string; headers: Readonly<Record<string, string>>; body: string }[] = [];
  const sender = createWebhookSender({
    http: {
      post(url, headers, body) {
        posted.push({ url, headers, body });
        return post(url);
      },
    },
    schedule: [100, 200],
    limits: LIMITS,
    now: () => Date.now(),
    logger: pino({ level: 'silent' }),
    onResults: () => results.push(...sender.drain()),
    random: () => 0.5,
    ...o,
  });
  return { sender, results, posted };
}

/** An HTTP client whose answers to some origins wait until released. */
function gate(blocked: (url: string) => boolean) {
  const waiting: (() => void)[] = [];
  let open = 0;
  let most = 0;
  return {
    post(url: string) {
      if (!blocked(url)) return Promise.resolve(answer(200));
      open += 1;
      most = Math.max(most, open);
      return new Promise<WebhookAttemptResult>((resolve) =>
        waiting.push(() => {
          open -= 1;
          resolve(answer(null));
        }),
      );
    },
    release: () => waiting.splice(0).forEach((r) => r()),
    get open() {
      return open;
    },
    get most() {
      return most;
    },
  };
}

async function until(check: () => boolean, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('the webhook sender', () => {
  it('serves a healthy origin fully while a stuck one holds only its per-origin slots', async () => {
    const client = gate((url) => url.startsWith('http://stuck'));
    const { sender, results } = harness((url) => client.post(url));
    sender.take([
      ...Array.from({ length: 10 }, () => delivery('http://stuck')),
      ...Array.from({ length: 10 }, () => delivery('http://fast')),
    ]);
    await until(() => results.filter((r) => r.delivery.origin === 'http://fast').length === 10);
    expect(client.open).toBe(2);
    expect(client.most).toBe(2);
    const stopping = sender.stop();
    client.release();
    await stopping;
    // The eight never started go back unattempted; the two in flight were tried.
    const stuck = results.filter((r) => r.delivery.origin === 'http://stuck');
    expect(stuck.filter((r) => r.next.kind === 'release')).toHaveLength(8);
    expect(stuck.filter((r) => r.attempt !== null)).toHaveLength(2);
    expect(sender.room()).toBe(0);
  });

  it('caps one account at its share of the slots: 40 hanging receivers leave room for others', async () => {
    const client = gate((url) => url.includes('hang'));
    const { sender, results } = harness((url) => client.post(url), {
      limits: { ...LIMITS, perOrigin: 8, perAccount: 32, maxInFlight: 64 },
    });
    sender.take(Array.from({ length: 40 * 8 }, (_, i) => delivery(`http://hang-${i % 40}`, 1)));
    sender.take([delivery('http://healthy', 2)]);
    await until(() => results.some((r) => r.delivery.origin === 'http://healthy'));
    expect(client.open).toBe(32);
    client.release();
    await sender.stop();
  });

  it('serves accounts in turn: a second account is not queued behind the first one’s backlog', async () => {
    let started: number[] = [];
    const { sender, results } = harness(
      async (url) => {
        started.push(Number(url.slice('http://a'.length, url.indexOf('.'))));
        return answer(200);
      },
      { limits: { ...LIMITS, perOrigin: 1, maxInFlight: 1 } },
    );
    started = [];
    sender.take(Array.from({ length: 20 }, () => delivery('http://a1.example', 1)));
    sender.take([delivery('http://a2.example', 2)]);
    await until(() => results.length === 21);
    // Account 2's only delivery went within the first few, not after account 1's twenty.
    expect(started.indexOf(2)).toBeLessThan(3);
    await sender.stop();
  });

  it('pauses an origin that keeps failing, hands its waiting deliveries back, and probes it later', async () => {
    let clock = 1_000_000;
    let healthy = false;
    const { sender, results } = harness(async () => answer(healthy ? 200 : 503), {
      now: () => clock,
      breaker: { failures: 3, openMs: 5_000, maxOpenMs: 60_000 },
      limits: { ...LIMITS, perOrigin: 1 },
    });
    sender.take(Array.from({ length: 10 }, () => delivery('http://flaky')));
    await until(() => results.length === 10);
    // Three failed attempts in a row, then the other seven went back unattempted.
    expect(results.filter((r) => r.attempt !== null).map((r) => r.attempt!.status)).toEqual([503, 503, 503]);
    expect(results.filter((r) => r.next.kind === 'release')).toHaveLength(7);
    expect(sender.accepts('http://flaky')).toBe(false);
    expect(sender.holdLimit('http://flaky')).toBe(0);
    expect(sender.endpoints()).toEqual([
      expect.objectContaining({ origin: 'http://flaky', circuit: 'open', reopensAt: clock + 5_000 }),
    ]);
    // Taken on while paused: handed straight back.
    sender.take([delivery('http://flaky')]);
    expect(results.at(-1)!.next).toEqual({ kind: 'release' });

    // After the pause one probe may go; it fails, and the pause doubles.
    clock += 5_000;
    expect(sender.holdLimit('http://flaky')).toBe(1);
    sender.take([delivery('http://flaky')]);
    await until(() => results.length === 12);
    expect(results.at(-1)!.attempt!.status).toBe(503);
    expect(sender.endpoints()[0]).toMatchObject({ circuit: 'open', reopensAt: clock + 10_000 });

    // The next probe succeeds: the origin is sent to again in full.
    clock += 10_000;
    healthy = true;
    sender.take([delivery('http://flaky'), delivery('http://flaky')]);
    await until(() => results.length === 14);
    expect(results.slice(-2).map((r) => r.next.kind)).toEqual(['delivered', 'delivered']);
    expect(sender.accepts('http://flaky')).toBe(true);
    await sender.stop();
  });

  it('a 4xx answer is the receiver’s decision, not a failing endpoint: it never pauses it', async () => {
    const { sender, results } = harness(async () => answer(404), {
      breaker: { failures: 2, openMs: 5_000, maxOpenMs: 60_000 },
    });
    sender.take(Array.from({ length: 5 }, () => delivery('http://gone')));
    await until(() => results.length === 5);
    expect(results.every((r) => r.next.kind === 'failed')).toBe(true);
    expect(sender.accepts('http://gone')).toBe(true);
    await sender.stop();
  });

  it('signs each attempt with the webhook id and the exact queued body', async () => {
    const d = delivery('http://a');
    const { sender, results, posted } = harness(async () => answer(204));
    sender.take([d]);
    await until(() => results.length === 1);
    await sender.stop();
    const [p] = posted;
    expect(p!.body).toBe(d.payload);
    expect(p!.headers['webhook-id']).toBe(d.webhookId);
    expect(new Webhook(secret).verify(p!.body, { ...p!.headers })).toEqual(JSON.parse(d.payload));
    expect(results[0]!.attempt).toMatchObject({ status: 204, error: null });
  });

  it('records a throwing client as a retry, never losing the attempt', async () => {
    const { sender, results } = harness(() => Promise.reject(new Error('boom')));
    sender.take([delivery('http://a')]);
    await until(() => results.length === 1);
    await sender.stop();
    expect(results[0]!.attempt).toMatchObject({ status: null, error: 'boom' });
    expect(results[0]!.next.kind).toBe('retry');
  });

  it('records an attempt whose secret cannot sign as a retry, without posting it', async () => {
    const broken = { ...delivery('http://a'), secrets: { current: '', previous: null, previousUntil: null } };
    const { sender, results, posted } = harness(async () => answer(200));
    sender.take([broken]);
    await until(() => results.length === 1);
    await sender.stop();
    expect(posted).toHaveLength(0);
    expect(results[0]!.attempt).toMatchObject({
      status: null,
      error: 'webhook secret is empty or not base64',
    });
    expect(results[0]!.next.kind).toBe('retry');
  });

  it('takes on no more than it may hold, and what it gives back waits for the next record', async () => {
    const { sender } = harness(() => new Promise(() => {}), { limits: { ...LIMITS, maxHeld: 3 } });
    expect(sender.room()).toBe(3);
    sender.take([delivery('http://a'), delivery('http://b')]);
    expect(sender.room()).toBe(1);
    const drained = sender.drain();
    sender.restore(drained);
    expect(sender.heldByOrigin()).toEqual(
      new Map([
        ['http://a', 1],
        ['http://b', 1],
      ]),
    );
  });
});

describe('nextStep: the outcome table', () => {
  const schedule = [1_000, 60_000];
  it('accepted → delivered, give_up → failed', () => {
    expect(nextStep(answer(200), 0, schedule, 0)).toEqual({ kind: 'delivered' });
    expect(nextStep(answer(400), 0, schedule, 0)).toEqual({ kind: 'failed' });
  });
  it('retry → due after the schedule entry of this attempt (jitter ±10%), failed when used up', () => {
    expect(nextStep(answer(500), 0, schedule, 10, () => 0.5)).toEqual({ kind: 'retry', at: 1_010 });
    expect(nextStep(answer(503), 1, schedule, 10, () => 1)).toEqual({ kind: 'retry', at: 66_010 });
    expect(nextStep(answer(503), 2, schedule, 10)).toEqual({ kind: 'failed' });
  });
  it('Retry-After stretches the delay up to the longest entry', () => {
    expect(nextStep({ ...answer(429), retryAfterMs: 30_000 }, 0, schedule, 0, () => 0.5)).toEqual({
      kind: 'retry',
      at: 30_000,
    });
    expect(nextStep({ ...answer(429), retryAfterMs: 3_600_000 }, 0, schedule, 0, () => 0.5)).toEqual({
      kind: 'retry',
      at: 60_000,
    });
  });
});

describe('signingSecrets', () => {
  it('adds the previous secret only while its grace period lasts', () => {
    const s = { current: 'new', previous: 'old', previousUntil: 5_000 };
    expect(signingSecrets(s, 4_999)).toEqual(['new', 'old']);
    expect(signingSecrets(s, 5_000)).toEqual(['new']);
    expect(signingSecrets({ current: 'new', previous: null, previousUntil: null }, 0)).toEqual(['new']);
  });
});
