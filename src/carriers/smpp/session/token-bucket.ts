/**
 * The per-connector submit rate: a token bucket holding one token. Submits are paced 1/rate
 * apart rather than sent in a burst, because SMSCs count over a sliding second and a burst
 * of `rate` followed by one more inside that second is already over their limit. Each turn
 * is measured from when the previous submit actually went, not from when it was due, so an
 * event-loop stall is not followed by a catch-up burst.
 *
 * When the SMSC throttles us (ESME_RTHROTTLED, ESME_RMSGQFUL), slowDown() halves the rate for
 * a while; another throttle inside that time halves it again, down to 1/s.
 */
export interface TokenBucketOptions {
  /** Messages per second; 0 = unlimited. */
  readonly rate: number;
  /** How long a slow-down lasts after the last throttle signal. */
  readonly slowDownMs: number;
  /** The recent actual rate, to slow down from when no limit is configured. */
  readonly recentRate: () => number;
  readonly now?: () => number;
}

const NOW: Promise<void> = Promise.resolve();

export class TokenBucket {
  private lastAt = Number.NEGATIVE_INFINITY;
  private queue: Promise<void> = Promise.resolve();
  private slowRate = 0;
  private slowUntil = 0;
  /** Turns queued and not yet taken. */
  private waiting = 0;
  private readonly now: () => number;

  constructor(private readonly options: TokenBucketOptions) {
    if (!(options.rate >= 0)) throw new RangeError(`throughput must be >= 0, got ${options.rate}`);
    this.now = options.now ?? Date.now;
  }

  /** The rate in force now, in messages/s; 0 = unlimited. */
  get rate(): number {
    return this.now() < this.slowUntil ? this.slowRate : this.options.rate;
  }

  /** take() would not wait: unlimited, with nobody waiting (there is no order to keep). */
  get open(): boolean {
    return this.waiting === 0 && this.rate === 0;
  }

  /** Waits for this submit's turn. Turns go in call order; `signal` ends the wait at once. */
  take(signal?: AbortSignal): Promise<void> {
    // No queue when open: two promises and a closure per submit saved.
    if (this.open) return NOW;
    this.waiting++;
    const turn = this.queue.then(() => this.waitTurn(signal)).finally(() => this.waiting--);
    this.queue = turn;
    return turn;
  }

  slowDown(): void {
    const current = this.rate === 0 ? Math.max(1, Math.floor(this.options.recentRate())) : this.rate;
    this.slowRate = Math.max(1, Math.floor(current / 2));
    this.slowUntil = this.now() + this.options.slowDownMs;
  }

  private async waitTurn(signal: AbortSignal | undefined): Promise<void> {
    const rate = this.rate;
    if (rate === 0 || signal?.aborted) return;
    const wait = this.lastAt + 1000 / rate - this.now();
    if (wait > 0) await sleep(wait, signal);
    this.lastAt = this.now();
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
