/**
 * Polls `probe` every 50 ms until `check` holds or `timeoutMs` has passed, and returns the last
 * value either way: the caller's assertion on it then says what was seen, not just "timed out".
 */
export async function until<T>(
  probe: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
