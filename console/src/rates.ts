/**
 * Per-second rates from two successive reads of GET /admin/v1/stats. Counters are cumulative
 * from an unspecified origin, so only differences count; one that went down started again
 * (a server restart), and that interval shows no rate rather than a negative one.
 */
export interface CounterSample {
  /** Milliseconds. */
  readonly at: number;
  readonly counters: Readonly<Record<string, number>>;
}

export function ratesBetween(previous: CounterSample, current: CounterSample): Record<string, number | null> {
  const seconds = (current.at - previous.at) / 1000;
  const rates: Record<string, number | null> = {};
  for (const [name, value] of Object.entries(current.counters)) {
    const before = previous.counters[name];
    rates[name] =
      seconds <= 0 || before === undefined || value < before
        ? null
        : Math.round(((value - before) / seconds) * 10) / 10;
  }
  return rates;
}

/** A fixed-length window of points for a chart: the oldest drop off as new ones come. */
export function appendPoint<T>(points: readonly T[], point: T, max: number): T[] {
  const next = [...points, point];
  return next.length > max ? next.slice(next.length - max) : next;
}
