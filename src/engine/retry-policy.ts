/**
 * Delays before re-submitting after a temporary carrier failure (not bound, throttled,
 * timeout). Policy as data: after the last entry the recipient is `aborted` (420). About an
 * hour in all, long enough to ride out an SMSC restart, short enough to tell the client.
 */
export const SEND_RETRY_SCHEDULE_MS: readonly number[] = [
  1_000, 5_000, 15_000, 60_000, 300_000, 900_000, 1_800_000,
];

export function sendRetryDelay(attempts: number): number | null {
  return SEND_RETRY_SCHEDULE_MS[attempts - 1] ?? null;
}
