/** Reconnect delays after a dropped link or a failed bind: exponential, capped, with jitter. */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly factor: number;
  readonly maxMs: number;
  /** Up to this fraction of the delay is added at random, so many gateways do not reconnect in step. */
  readonly jitter: number;
}

/**
 * 0.5 s, 1 s, 2 s … 30 s: an SMSC restart (typically 10–60 s) is caught within half a
 * minute, and a refused bind is not hammered more than twice a minute.
 */
export const RECONNECT_BACKOFF: BackoffPolicy = { initialMs: 500, factor: 2, maxMs: 30_000, jitter: 0.2 };

/** `attempt` counts from 0 (the first retry after a failure). */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, attempt));
  return Math.round(base * (1 + policy.jitter * random()));
}
