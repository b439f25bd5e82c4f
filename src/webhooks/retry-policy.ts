/**
 * When to try a webhook again, as data (decisions §10, interface.md Events).
 */

export type AttemptOutcome = 'accepted' | 'retry' | 'give_up';

/**
 * Status ranges and their outcome; a status in none of them gives up. Followed strictly: 408
 * and 425 are not retried even though they are "try again" codes elsewhere, because the
 * published rules promise a receiver that any 4xx other than 429 stops the deliveries. 3xx
 * gives up too: redirects are never followed, since a redirect could point at a private host.
 */
export const RESPONSE_POLICY = [
  { from: 200, to: 299, outcome: 'accepted' },
  { from: 429, to: 429, outcome: 'retry' },
  { from: 500, to: 599, outcome: 'retry' },
] as const satisfies readonly { from: number; to: number; outcome: AttemptOutcome }[];

/** No response at all: connection error, timeout, reset before the status line. */
export const NO_RESPONSE_OUTCOME: AttemptOutcome = 'retry';
const UNLISTED_STATUS_OUTCOME: AttemptOutcome = 'give_up';

export function classifyResponse(status: number | null): AttemptOutcome {
  if (status === null) return NO_RESPONSE_OUTCOME;
  const rule = RESPONSE_POLICY.find((r) => status >= r.from && status <= r.to);
  return rule?.outcome ?? UNLISTED_STATUS_OUTCOME;
}

/** ±10% so deliveries that failed together (one receiver outage) do not come back together. */
export const JITTER_FRACTION = 0.1;

export interface NextAttemptInput {
  /** Attempts already made, the failed one included; 0 means none yet (send now). */
  attemptsMade: number;
  /** Delay before each retry in ms: entry i follows attempt i + 1. Its length is the retry count. */
  schedule: readonly number[];
  /** What the receiver asked for with Retry-After, if anything. */
  retryAfterMs?: number;
  /** Uniform in [0, 1); injectable so tests are exact. */
  random?: () => number;
}

/**
 * Delay in ms before the next attempt, or null when the schedule is used up (give up).
 *
 * Retry-After is honoured when it asks for more than the scheduled delay, but capped at the
 * schedule's longest entry: a receiver may slow us to our own slowest pace, never further. It
 * cannot add attempts either, so one header cannot park a delivery indefinitely and the
 * last attempt still happens within the schedule's total. It is not jittered: going earlier
 * than asked would defeat it.
 */
export function nextAttemptDelay(input: NextAttemptInput): number | null {
  const { attemptsMade, schedule, retryAfterMs, random = Math.random } = input;
  if (attemptsMade <= 0) return 0;
  const scheduled = schedule[attemptsMade - 1];
  if (scheduled === undefined) return null;
  const jitter = (random() * 2 - 1) * JITTER_FRACTION;
  const delay = Math.max(0, Math.round(scheduled * (1 + jitter)));
  if (retryAfterMs === undefined || retryAfterMs <= delay) return delay;
  return Math.max(delay, Math.min(retryAfterMs, Math.max(...schedule)));
}

// The three HTTP-date forms a recipient must accept (RFC 9110 §5.6.7).
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * Retry-After as ms from `now` (epoch ms): delay-seconds or an HTTP-date; a date in the past
 * gives 0. Date.parse alone is too lenient ("2" parses as a date), hence the shapes.
 */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) {
    const ms = Number(value) * 1000;
    return Number.isFinite(ms) ? ms : undefined;
  }
  let at: number;
  if (IMF_FIXDATE.test(value) || RFC850_DATE.test(value)) at = Date.parse(value);
  // asctime carries no zone; HTTP defines it as GMT, Date.parse would read it as local time.
  else if (ASCTIME_DATE.test(value)) at = Date.parse(`${value} GMT`);
  else return undefined;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
