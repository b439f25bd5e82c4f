import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery, DeliveryResult } from '../../src/store/webhooks.js';
import {
  nextStep,
  signingSecrets,
  startDeliveryRunner,
  type DeliveryOps,
  type DeliveryRunnerOptions,
} from '../../src/webhooks/delivery-runner.js';
import type { WebhookAttemptResult } from '../../src/webhooks/http-client.js';
import { generateWebhookSecret } from '../../src/webhooks/sign.js';

/** The delivery runner's loop over in-memory operations: no database, no network. */

const secret = generateWebhookSecret();
let nextId = 0;
function delivery(origin: string, retryAttempts = 0): ClaimedDelivery {
  const id = ++nextId;
  return {
    deliveryId: id,
    retryAttempts,
    webhookId: `msg_${id}`,
    accountId: 1,
    kind: 'delivery_report',
    messageId: id,
    url: `${origin}/hook`,
    origin,
    payload: JSON.stringify({ n: id }),
    secrets: { current: secret, previous: null, previousUntil: null },
  };
}

const ok = (status = 200): WebhookAttemptResult => ({
  kind: status < 300 ? 'accepted' : status === 429 || status >= 500 ? 'retry' : 'give_up',
  status,
  durationMs: 1,
  responseExcerpt: '',
});

/** A queue of due deliveries that honours the runner's per-origin holding, like the store. */
function fakeOps(due: ClaimedDelivery[], post: DeliveryOps['post'], perOriginHeld: number) {
  const recorded: DeliveryResult[] = [];
  const released: ClaimedDelivery[] = [];
  const posted: { url: string; headers: Record<string, string>; body: string }[] = [];
  const ops: DeliveryOps = {
    async claim(held, limit) {
      const out: ClaimedDelivery[] = [];
      const counts = new Map(held);
      const backlogged = new Set<string>();
      for (const d of [...due]) {
        if (out.length >= limit) break;
        const n = counts.get(d.origin) ?? 0;
        if (n >= perOriginHeld) {
          backlogged.add(d.origin);
          continue;
        }
        counts.set(d.origin, n + 1);
        due.splice(due.indexOf(d), 1);
        out.push(d);
      }
      return { deliveries: out, more: out.length >= limit, backlogged: [...backlogged] };
    },
    post(url, headers, body) {
      posted.push({ url, headers, body });
      return post(url, headers, body);
    },
    async record(results) {
      recorded.push(...results);
    },
    async release(deliveries) {
      released.push(...deliveries);
    },
    async nextDue() {
      return due.length > 0 ? 0 : null;
    },
  };
  return { ops, recorded, released, posted };
}

const options = (o: Partial<DeliveryRunnerOptions> = {}): DeliveryRunnerOptions => ({
  schedule: [100, 200],
  perOrigin: 2,
  prefetchPerOrigin: 4,
  maxInFlight: 100,
  maxHeld: 100,
  leaseMs: 60_000,
  attemptTimeoutMs: 1_000,
  maxSleepMs: 50,
  now: () => Date.now(),
  logger: pino({ level: 'silent' }),
  random: () => 0.5,
  ...o,
});

async function until(check: () => boolean, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('the delivery runner', () => {
  it('serves a healthy origin fully while a stuck one holds only its per-origin slots', async () => {
    const stuck: (() => void)[] = [];
    let openStuck = 0;
    let maxStuck = 0;
    const due = [
      ...Array.from({ length: 10 }, () => delivery('http://stuck')),
      ...Array.from({ length: 10 }, () => delivery('http://fast')),
    ];
    const { ops, recorded, released } = fakeOps(
      due,
      (url) => {
        if (!url.startsWith('http://stuck')) return Promise.resolve(ok());
        openStuck += 1;
        maxStuck = Math.max(maxStuck, openStuck);
        return new Promise((resolve) =>
          stuck.push(() => {
            openStuck -= 1;
            resolve(ok());
          }),
        );
      },
      4,
    );
    const runner = startDeliveryRunner(ops, options());
    // Queued behind ten deliveries to a receiver that does not answer, and still all through.
    await until(() => recorded.filter((r) => r.delivery.origin === 'http://fast').length === 10);
    expect(openStuck).toBe(2);
    expect(maxStuck).toBe(2);
    for (const r of recorded) expect(r.next).toEqual({ kind: 'delivered' });

    const stopping = runner.stop();
    // Two held in reserve for the stuck origin were never started: given back, not dropped.
    await until(() => released.length === 2);
    stuck.splice(0).forEach((answer) => answer());
    await stopping;
    expect(released.every((d) => d.origin === 'http://stuck')).toBe(true);
    expect(recorded.filter((r) => r.delivery.origin === 'http://stuck')).toHaveLength(2);
  });

  it('signs each attempt with the webhook id and the exact queued body', async () => {
    const d = delivery('http://a');
    const { ops, posted, recorded } = fakeOps([d], () => Promise.resolve(ok(204)), 4);
    const runner = startDeliveryRunner(ops, options());
    await until(() => recorded.length === 1);
    await runner.stop();
    const [p] = posted;
    expect(p!.body).toBe(d.payload);
    expect(p!.headers['webhook-id']).toBe(d.webhookId);
    expect(new Webhook(secret).verify(p!.body, p!.headers)).toEqual(JSON.parse(d.payload));
    expect(recorded[0]!.attempt).toMatchObject({ status: 204, error: null });
  });

  it('does not start an attempt its lease can no longer cover, and gives it back', async () => {
    let clock = 1_000_000;
    const d = delivery('http://a');
    const { ops, posted, released } = fakeOps([d], () => Promise.resolve(ok()), 4);
    // The claim happens at `clock`; the attempt would start after the lease minus its timeout.
    const claim = ops.claim;
    ops.claim = async (held, limit, holdLimit) => {
      const out = await claim(held, limit, holdLimit);
      clock += 59_500;
      return out;
    };
    const runner = startDeliveryRunner(ops, options({ now: () => clock }));
    await until(() => released.length === 1);
    await runner.stop();
    expect(posted).toHaveLength(0);
  });

  it('records a throwing client as a retry, never losing the attempt', async () => {
    const { ops, recorded } = fakeOps([delivery('http://a')], () => Promise.reject(new Error('boom')), 4);
    const runner = startDeliveryRunner(ops, options());
    await until(() => recorded.length === 1);
    await runner.stop();
    expect(recorded[0]!.attempt).toMatchObject({ status: null, error: 'boom' });
    expect(recorded[0]!.next.kind).toBe('retry');
  });

  it('records an attempt whose secret cannot sign as a retry, without posting it', async () => {
    const broken = { ...delivery('http://a'), secrets: { current: '', previous: null, previousUntil: null } };
    const { ops, recorded, posted } = fakeOps([broken], () => Promise.resolve(ok()), 4);
    const runner = startDeliveryRunner(ops, options());
    await until(() => recorded.length === 1);
    await runner.stop();
    expect(posted).toHaveLength(0);
    expect(recorded[0]!.attempt).toMatchObject({
      status: null,
      error: 'webhook secret is empty or not base64',
    });
    expect(recorded[0]!.next.kind).toBe('retry');
  });
});

describe('nextStep: the outcome table', () => {
  const schedule = [1_000, 60_000];
  it('accepted → delivered, give_up → failed', () => {
    expect(nextStep(ok(200), 0, schedule, 0)).toEqual({ kind: 'delivered' });
    expect(nextStep(ok(400), 0, schedule, 0)).toEqual({ kind: 'failed' });
  });
  it('retry → due after the schedule entry of this attempt (jitter ±10%), failed when used up', () => {
    expect(nextStep(ok(500), 0, schedule, 10, () => 0.5)).toEqual({ kind: 'retry', at: 1_010 });
    expect(nextStep(ok(503), 1, schedule, 10, () => 1)).toEqual({ kind: 'retry', at: 66_010 });
    expect(nextStep(ok(503), 2, schedule, 10)).toEqual({ kind: 'failed' });
  });
  it('Retry-After stretches the delay up to the longest entry', () => {
    expect(nextStep({ ...ok(429), retryAfterMs: 30_000 }, 0, schedule, 0, () => 0.5)).toEqual({
      kind: 'retry',
      at: 30_000,
    });
    expect(nextStep({ ...ok(429), retryAfterMs: 3_600_000 }, 0, schedule, 0, () => 0.5)).toEqual({
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
