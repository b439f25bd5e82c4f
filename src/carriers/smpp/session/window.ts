/**
 * At most `size` submits awaiting a response (the SMPP "window"). A submit past that waits
 * for a slot instead of failing: the slot frees within one response timeout at worst.
 */
export class Window {
  private used = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`window must be >= 1, got ${size}`);
  }

  /** Takes a free slot; false (nothing taken) when all are in use. */
  tryAcquire(): boolean {
    if (this.used >= this.size) return false;
    this.used++;
    return true;
  }

  async acquire(): Promise<void> {
    if (this.tryAcquire()) return;
    // The releaser hands its slot straight to the first waiter, so `used` stays as it is.
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.used = Math.max(0, this.used - 1);
  }

  get inUse(): number {
    return this.used;
  }

  get waiting(): number {
    return this.waiters.length;
  }
}
