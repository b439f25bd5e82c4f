/**
 * The per-connector submit rate. The bucket holds one token: submits are paced 1/rate apart
 * rather than sent in a burst, because SMSCs count over a sliding second and a burst of
 * `rate` followed by one more inside that second is already over their limit.
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

export class TokenBucket {
  private nextFreeAt = 0;
  private slowRate = 0;
  private slowUntil = 0;
  private readonly now: () => number;

  constructor(private readonly options: TokenBucketOptions) {
    if (!(options.rate >= 0)) throw new RangeError(`throughput must be >= 0, got ${options.rate}`);
    this.now = options.now ?? Date.now;
  }

  /** The rate in force now, in messages/s; 0 = unlimited. */
  get rate(): number {
    return this.now() < this.slowUntil ? this.slowRate : this.options.rate;
  }

  /** Waits for this submit's turn. Turns are handed out in call order. */
  async take(): Promise<void> {
    const rate = this.rate;
    if (rate === 0) return;
    const now = this.now();
    const at = Math.max(now, this.nextFreeAt);
    this.nextFreeAt = at + 1000 / rate;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }

  slowDown(): void {
    const current = this.rate === 0 ? Math.max(1, Math.floor(this.options.recentRate())) : this.rate;
    this.slowRate = Math.max(1, Math.floor(current / 2));
    this.slowUntil = this.now() + this.options.slowDownMs;
  }
}
