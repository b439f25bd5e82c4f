/**
 * Durations in configuration values (SMSGW_RECEIPT_TIMEOUT=48h,
 * SMSGW_WEBHOOK_RETRY=5s,5m,30m,2h,5h,10h,10h). Whole numbers only: `1.5h` is written `90m`,
 * which keeps a typo like `1,5h` from being read as something else.
 */

const DURATION = /^(\d+)(ms|s|m|h|d)?$/;

const MS_PER_UNIT = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** '500ms', '5s', '5m', '2h', '1d', or a bare integer = seconds → milliseconds; null when malformed. */
export function parseDuration(input: string): number | null {
  // Surrounding whitespace is allowed so a single value reads like a list item (.env files
  // often carry a trailing space); inner whitespace (`5 s`) is not.
  const m = DURATION.exec(input.trim());
  if (m === null) return null;
  const [, amount, unit = 's'] = m;
  const ms = Number(amount) * MS_PER_UNIT[unit as keyof typeof MS_PER_UNIT];
  return Number.isSafeInteger(ms) ? ms : null;
}

/** '5s,5m,30m,2h' → [5000, 300000, ...]; null when any item is malformed or the list is empty. */
export function parseDurationList(input: string): number[] | null {
  const durations: number[] = [];
  for (const item of input.split(',')) {
    const ms = parseDuration(item);
    if (ms === null) return null;
    durations.push(ms);
  }
  return durations;
}
