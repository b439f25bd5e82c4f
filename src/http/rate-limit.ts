import type { App } from './app.js';
import { errorBody } from './errors.js';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Per-account `rate_limit` (decisions §13): requests per second, counted by each node on its
 * own. A token bucket per account holds up to one second of requests and refills at the rate,
 * so a steady client at the limit is never refused and a burst above it is, with the seconds
 * until the next request would pass in Retry-After.
 *
 * It runs at preParsing: after the route's onRequest hook has found the account (so the key is
 * checked first and a refused request is 401, not 429), before the body is read. An account
 * without a limit costs one comparison. @fastify/rate-limit would add an async hook to every
 * route and three headers to every response, and count in fixed windows (twice the rate across
 * a window boundary); the limit here is the account's own setting, read with its key.
 */
export function registerRateLimit(app: App, now: () => number): void {
  const buckets = new Map<number, Bucket>();
  app.addHook('preParsing', (request, reply, payload, done) => {
    const account = request.account;
    if (account === null || account.rateLimit === null) return done(null, payload);
    const rate = account.rateLimit;
    const at = now();
    let bucket = buckets.get(account.id);
    if (bucket === undefined) {
      bucket = { tokens: rate, at };
      buckets.set(account.id, bucket);
    } else {
      // A lowered limit applies at once: the bucket never holds more than a second's worth.
      bucket.tokens = Math.min(rate, bucket.tokens + ((at - bucket.at) / 1000) * rate);
      bucket.at = at;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return done(null, payload);
    }
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
    void reply.code(429).header('retry-after', String(retryAfter)).send(errorBody.generic(429));
  });
}
