/**
 * Delivery windows (decisions §20): a recipient is handed to a carrier only while its local
 * time is in [start, end); an end before the start spans midnight (22:00–06:00 is the night).
 * Pure: the zone rules come from Intl through dates.ts, so daylight-saving changes move the
 * opening instant with the local clock.
 */
import { instantOfWallClock, wallClockOf } from './dates.js';

/** The body field `window` and the account setting of the same name. */
export interface DeliveryWindow {
  /** HH:MM, 00:00–23:59. */
  readonly start: string;
  readonly end: string;
  /** An IANA zone name, or `recipient`: the zone of the recipient's number (recipient-zone.ts). */
  readonly timezone: string;
}

export const RECIPIENT_ZONE = 'recipient';

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Minutes after local midnight of an `HH:MM`, or null when it is not one. */
export function minuteOfDay(text: string): number | null {
  const m = HH_MM.exec(text);
  return m === null ? null : Number(m[1]) * 60 + Number(m[2]);
}

/** Start and end in minutes of the day; the caller checked both with minuteOfDay. */
export interface WindowMinutes {
  readonly start: number;
  readonly end: number;
}

export function isOpenAt(window: WindowMinutes, minute: number): boolean {
  return window.start < window.end
    ? minute >= window.start && minute < window.end
    : minute >= window.start || minute < window.end;
}

/**
 * The first instant at or after `at` when the window is open in `timeZone`: `at` itself when it
 * is open then, else the next local `start`. A `start` the clocks skip (spring forward) opens
 * the window at the instant of the jump, the first moment the local time is past it.
 */
export function windowOpensAt(window: WindowMinutes, timeZone: string, at: number): number {
  const wall = wallClockOf(at, timeZone);
  const minute = Math.floor((((wall % DAY_MS) + DAY_MS) % DAY_MS) / MINUTE_MS);
  if (isOpenAt(window, minute)) return at;
  const midnight = wall - (((wall % DAY_MS) + DAY_MS) % DAY_MS);
  // Today's start if it is still ahead on the wall clock, else tomorrow's.
  const wanted = midnight + window.start * MINUTE_MS + (minute < window.start ? 0 : DAY_MS);
  const opens = instantOfWallClock(wanted, timeZone);
  const shown = wallClockOf(opens, timeZone);
  if (shown === wanted) return Math.max(opens, at);
  // Skipped: `opens` shows `wanted` moved on by the gap. The jump lies in the gap before it;
  // the wall clock rises through it, so find the first instant showing a time past `wanted`.
  let low = opens - (shown - wanted);
  let high = opens;
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS;
    if (wallClockOf(middle, timeZone) >= wanted) high = middle;
    else low = middle;
  }
  return Math.max(high, at);
}
