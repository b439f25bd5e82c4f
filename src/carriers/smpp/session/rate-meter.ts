/**
 * Events per second over the last few seconds, in one-second buckets: cheap enough to count
 * every submit, smooth enough for an admin view and for picking a slow-down rate.
 */
export class RateMeter {
  private readonly buckets: number[];
  private currentSecond = 0;

  constructor(
    private readonly seconds = 5,
    private readonly now: () => number = Date.now,
  ) {
    this.buckets = new Array<number>(seconds).fill(0);
  }

  mark(count = 1): void {
    this.advance();
    this.buckets[this.currentSecond % this.seconds]! += count;
  }

  /** Average per second over the full seconds of the span, so a burst this second shows. */
  perSecond(): number {
    this.advance();
    const total = this.buckets.reduce((a, b) => a + b, 0);
    return total / this.seconds;
  }

  private advance(): void {
    const second = Math.floor(this.now() / 1000);
    if (this.currentSecond === 0) this.currentSecond = second;
    // Clear the buckets of the seconds that passed without events (all of them after a long gap).
    for (let s = this.currentSecond + 1; s <= second && s - this.currentSecond <= this.seconds; s++) {
      this.buckets[s % this.seconds] = 0;
    }
    this.currentSecond = Math.max(this.currentSecond, second);
  }
}
