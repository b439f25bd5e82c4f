export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** Nearest-rank percentiles of latencies in milliseconds. */
export function summarise(latenciesMs: Float64Array): LatencySummary {
  const sorted = Float64Array.from(latenciesMs).sort();
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  return { count: sorted.length, p50: at(50), p99: at(99), max: sorted[sorted.length - 1] ?? 0 };
}

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 1234567 → "1,234,567" */
export function count(n: number): string {
  return whole.format(n);
}

export function ms(value: number): string {
  return value < 10 ? `${value.toFixed(2)} ms` : `${value.toFixed(1)} ms`;
}

export function seconds(valueMs: number): string {
  if (valueMs < 60_000) return `${(valueMs / 1000).toFixed(1)} s`;
  const s = Math.round(valueMs / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}
