/**
 * Token bucket for a connector's throughput (messages/s). A bucket of one second's tokens
 * absorbs bursts after idle time without ever exceeding the rate over a second.
 */
export interface RateLimiter {
  /** Resolves when the caller may send one message. */
  take(): Promise<void>;
  readonly ratePerSecond: number;
}

export function createRateLimiter(
  ratePerSecond: number,
  now: () => number = () => performance.now(),
): RateLimiter {
  if (ratePerSecond <= 0) return { take: () => Promise.resolve(), ratePerSecond: 0 };
  let tokens = ratePerSecond;
  let last = now();
  let chain = Promise.resolve();
  const refill = () => {
    const t = now();
    tokens = Math.min(ratePerSecond, tokens + ((t - last) * ratePerSecond) / 1000);
    last = t;
  };
  return {
    ratePerSecond,
    take() {
      // Serialised so waiters are served in arrival order.
      chain = chain.then(async () => {
        refill();
        if (tokens < 1) {
          await new Promise((r) => setTimeout(r, Math.ceil(((1 - tokens) * 1000) / ratePerSecond)));
          refill();
        }
        tokens -= 1;
      });
      return chain;
    },
  };
}
