/**
 * The part submits in flight, and a wait for those in flight *now* to settle (not the ones
 * started afterwards). A receipt that overtook its submit_sm_resp waits on it; it used to be
 * Promise.allSettled over every outstanding submit, which cost O(in flight) per receipt:
 * 20,000 receipts × 1,000 submits queued behind the window was 8 s of promise reactions in
 * the smpp bench.
 */
export class InFlight {
  private nextTicket = 0;
  /** Tickets of unsettled submits; a Set iterates in insertion order, so the oldest comes first. */
  private readonly open = new Set<number>();
  /** In ticket order: each waits until every ticket below `upTo` has settled. */
  private readonly waiters: { readonly upTo: number; readonly resolve: () => void }[] = [];

  track(submit: Promise<unknown>): void {
    const ticket = this.nextTicket++;
    this.open.add(ticket);
    // then(f, f), not finally(): finally's promise would reject with a rejected submit, unhandled.
    submit.then(
      () => this.settle(ticket),
      () => this.settle(ticket),
    );
  }

  /** Resolves once every submit tracked before this call has settled. */
  settled(): Promise<void> {
    const upTo = this.nextTicket;
    if (this.oldest() >= upTo) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ upTo, resolve }));
  }

  get size(): number {
    return this.open.size;
  }

  private oldest(): number {
    for (const ticket of this.open) return ticket;
    return this.nextTicket;
  }

  private settle(ticket: number): void {
    this.open.delete(ticket);
    this.wake();
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const oldest = this.oldest();
    while (this.waiters.length > 0 && this.waiters[0]!.upTo <= oldest) this.waiters.shift()!.resolve();
  }
}
