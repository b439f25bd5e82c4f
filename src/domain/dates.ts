/**
 * Date-time input and output (decisions §6). Pure: the time-zone rules come from Intl.
 *
 * Accepted input, and nothing else:
 * 1. Unix seconds: a non-negative integer JSON number, or a string of digits.
 * 2. `YYYY-MM-DD hh:mm:ss[.fff]`, no zone: wall time in the account's zone.
 * 3. `YYYY-MM-DDThh:mm:ss[.fff]Z`.
 * 4. `YYYY-MM-DDThh:mm:ss[.fff]±hh:mm` or `±hhmm`.
 * Date and time may be joined by `T` or a space in every form (RFC 3339 allows the space).
 * Seconds are required in every form, as RFC 3339 requires: one rule, and no guessing
 * whether `10:30` was meant. Fractions may have 1–9 digits and are truncated to milliseconds.
 * A space instead of an offset's `+` is read as `+`, because an unencoded `+` in a query
 * string arrives as a space (the same reading as for msisdns).
 * The result must lie in 1970-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z: the range of
 * non-negative Unix seconds that formatDateTime can print with a four-digit year.
 */

const MAX_MS = 253_402_300_799_999;
const DAY_MS = 86_400_000;

const UNIX_SECONDS = /^\d{1,12}$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+ -])(\d{2}):?(\d{2}))?$/;

/** Epoch milliseconds, or null when the input matches none of the accepted forms or is not a real date. Throws RangeError for an invalid timeZone: that is a configuration fault, not the client's. */
export function parseDateTime(input: string | number, timeZone: string): number | null {
  const zone = zoneFor(timeZone);
  if (typeof input === 'number') return unixSeconds(input);
  if (typeof input !== 'string') return null;
  if (UNIX_SECONDS.test(input)) return unixSeconds(Number(input));
  const m = DATE_TIME.exec(input);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offsetH, offsetM] = m;
  const wall = wallTimeMs(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), fraction);
  if (wall === null) return null;
  let ms: number;
  if (zulu !== undefined) {
    ms = wall;
  } else if (sign !== undefined) {
    const hours = Number(offsetH);
    const minutes = Number(offsetM);
    if (hours > 23 || minutes > 59) return null;
    // A space stands for '+' (see the top of this file).
    ms = wall - (sign === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
  } else {
    // Offsets never reach a day, so a wall time this far out cannot land in range; this also
    // keeps Intl away from years it would print with an era.
    if (wall < -DAY_MS || wall > MAX_MS + DAY_MS) return null;
    ms = zone.utc ? wall : localToUtc(zone.formatter, wall);
  }
  return ms >= 0 && ms <= MAX_MS ? ms : null;
}

export function isValidTimeZone(tz: string): boolean {
  try {
    zoneFor(tz);
    return true;
  } catch {
    return false;
  }
}

/** RFC 3339 UTC with milliseconds and Z, e.g. 2026-11-21T15:30:00.123Z */
export function formatDateTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** Unix seconds with 6 decimals, as a string (inbound received_at). */
export function formatUnixSeconds(ms: number): string {
  // Integer arithmetic on seconds and microseconds apart: ms * 1000 would pass 2^53 after
  // year 2255, and float division prints noise like 1763739000.1229999.
  const abs = Math.abs(ms);
  let seconds = Math.floor(abs / 1000);
  let micros = Math.round((abs - seconds * 1000) * 1000);
  if (micros === 1_000_000) {
    seconds += 1;
    micros = 0;
  }
  return `${ms < 0 ? '-' : ''}${seconds}.${String(micros).padStart(6, '0')}`;
}

function unixSeconds(seconds: number): number | null {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds * 1000 > MAX_MS) return null;
  return seconds * 1000 + 0; // + 0 turns -0 into 0
}

/** The fields read as if they were UTC, or null when they name no real date or time. */
function wallTimeMs(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  fraction = '',
): number | null {
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  // No leap second: Date cannot represent 23:59:60.
  if (h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(0);
  // setUTCFullYear, because Date.UTC maps years 0–99 to 1900–1999.
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, Number(fraction.padEnd(3, '0').slice(0, 3)));
  return date.getTime();
}

function daysInMonth(y: number, mo: number): number {
  if (mo === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
}

interface Zone {
  readonly formatter: Intl.DateTimeFormat;
  /** UTC and its aliases skip Intl altogether: the default zone, so the common case. */
  readonly utc: boolean;
}

// Formatter construction costs ~50 µs; formatting with a cached one ~4 µs. Keyed by the name
// as given; the cap only guards against a flood of spellings (Intl ignores case).
const zones = new Map<string, Zone>();
const ZONE_CACHE_LIMIT = 1000;

function zoneFor(timeZone: string): Zone {
  const cached = zones.get(timeZone);
  if (cached !== undefined) return cached;
  // Intl also takes offsets like '+05:30' on newer engines; the contract says IANA names.
  if (/^[+-]/.test(timeZone)) throw new RangeError(`Invalid time zone: ${timeZone}`);
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const zone = { formatter, utc: formatter.resolvedOptions().timeZone === 'UTC' };
  if (zones.size >= ZONE_CACHE_LIMIT) zones.clear();
  zones.set(timeZone, zone);
  return zone;
}

/**
 * The instant whose wall time in the zone is `wall` (wall fields read as UTC).
 * Candidates come from the offsets a day before and after, which assumes at most one
 * transition within two days (true of every zone in the tz database since 1970).
 * - One candidate reads back as `wall`: that one.
 * - Two do (clocks went back, the wall time happened twice): the earlier instant.
 * - None does (clocks went forward, the wall time never happened): the wall time is moved
 *   forward by the gap, i.e. read with the offset from before the change: 02:30 on a New
 *   York spring-forward day is 03:30 EDT. The same rule as java.time, Temporal's
 *   'compatible' and moment-timezone.
 */
function localToUtc(formatter: Intl.DateTimeFormat, wall: number): number {
  const before = offsetAt(formatter, wall - DAY_MS);
  const after = offsetAt(formatter, wall + DAY_MS);
  const earlier = wall - before;
  if (before === after) return earlier;
  const later = wall - after;
  const candidates = [Math.min(earlier, later), Math.max(earlier, later)];
  for (const instant of candidates) {
    if (instant + offsetAt(formatter, instant) === wall) return instant;
  }
  return earlier;
}

/** Zone offset in ms at an instant: its wall time read as UTC, minus the instant. */
function offsetAt(formatter: Intl.DateTimeFormat, instant: number): number {
  const fields: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
  for (const part of formatter.formatToParts(instant)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const date = new Date(0);
  date.setUTCFullYear(fields.year ?? 0, (fields.month ?? 1) - 1, fields.day ?? 1);
  date.setUTCHours(fields.hour ?? 0, fields.minute ?? 0, fields.second ?? 0);
  // Intl drops the milliseconds, so compare against the whole second.
  return date.getTime() - (instant - mod(instant, 1000));
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}
