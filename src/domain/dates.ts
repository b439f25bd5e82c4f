/**
 * Date-time input and output (decisions §6). Pure: the time-zone rules come from Intl.
 *
 * Accepted input, and nothing else:
 * 1. Unix seconds: an integer JSON number, or a string of digits, negative before 1970.
 * 2. `YYYY-MM-DD hh:mm:ss[.fff]`, no zone: wall time in the account's zone.
 * 3. `YYYY-MM-DDThh:mm:ss[.fff]Z`.
 * 4. `YYYY-MM-DDThh:mm:ss[.fff]±hh:mm` or `±hhmm`.
 * Date and time may be joined by `T` or a space in every form (RFC 3339 allows the space).
 * Seconds are required in every form, as RFC 3339 requires: one rule, and no guessing
 * whether `10:30` was meant. Fractions may have 1–9 digits and are truncated to milliseconds.
 * A space instead of an offset's `+` is read as `+`, because an unencoded `+` in a query
 * string arrives as a space (the same reading as for msisdns).
 * The result must lie in 0001-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z: the years
 * formatDateTime prints with four digits, dates before 1970 included (decisions §6: a filter
 * on old messages, or a client's clock, may name them).
 */

const MIN_MS = -62_135_596_800_000;
const MAX_MS = 253_402_300_799_999;
const DAY_MS = 86_400_000;

const UNIX_SECONDS = /^-?\d{1,12}$/;
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
  } else if (zone.utc) {
    ms = wall;
  } else {
    // Offsets never reach a day, so a wall time this far out cannot land in range; this also
    // keeps Intl (which reads the zone a day either side) away from years it prints with an era.
    if (wall < MIN_MS + 2 * DAY_MS || wall > MAX_MS + DAY_MS) return null;
    ms = localToUtc(zone.formatter, wall);
  }
  return inRange(ms) ? ms : null;
}

export function isValidTimeZone(tz: string): boolean {
  try {
    zoneFor(tz);
    return true;
  } catch {
    return false;
  }
}

/**
 * RFC 3339 UTC with milliseconds and Z, e.g. 2026-11-21T15:30:00.123Z: the text of
 * `new Date(ms).toISOString()`, which prints through snprintf and took ~1 µs a call. A list page
 * prints 100–200 of these; integer arithmetic and one String.fromCharCode take ~0.2 µs.
 * Outside the range the API stores (and for fractions), Date prints it, so the text is
 * toISOString's for every number (test/domain/format-date-time.test.ts).
 */
export function formatDateTime(ms: number): string {
  if (!(ms >= 0 && ms <= MAX_MS) || ms % 1 !== 0) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  const inDay = ms - days * DAY_MS;
  const { year, month, day } = civilFromDays(days);
  const seconds = (inDay / 1000) | 0;
  const hour = (seconds / 3600) | 0;
  const minute = ((seconds / 60) | 0) % 60;
  const second = seconds % 60;
  const milli = inDay % 1000;
  // prettier-ignore
  return String.fromCharCode(
    digit(year, 1000), digit(year, 100), digit(year, 10), digit(year, 1), DASH,
    digit(month, 10), digit(month, 1), DASH, digit(day, 10), digit(day, 1), T,
    digit(hour, 10), digit(hour, 1), COLON, digit(minute, 10), digit(minute, 1), COLON,
    digit(second, 10), digit(second, 1), DOT, digit(milli, 100), digit(milli, 10), digit(milli, 1), Z,
  );
}

const [DASH, T, COLON, DOT, Z] = [0x2d, 0x54, 0x3a, 0x2e, 0x5a];

/** Character code of the decimal digit of `n` at `place` (1, 10, 100 or 1000). */
function digit(n: number, place: number): number {
  return 0x30 + (((n / place) | 0) % 10);
}

/**
 * Proleptic Gregorian date of a day count from 1970-01-01, for days ≥ 0 (Howard Hinnant's
 * civil_from_days): days are counted in 400-year eras starting on 0000-03-01, so the leap day
 * falls at the end of each year.
 */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = (z / 146_097) | 0;
  const dayOfEra = z - era * 146_097;
  const yearOfEra =
    ((dayOfEra - ((dayOfEra / 1460) | 0) + ((dayOfEra / 36_524) | 0) - ((dayOfEra / 146_096) | 0)) / 365) | 0;
  const dayOfYear = dayOfEra - (365 * yearOfEra + ((yearOfEra / 4) | 0) - ((yearOfEra / 100) | 0));
  const shiftedMonth = ((5 * dayOfYear + 2) / 153) | 0;
  const day = dayOfYear - (((153 * shiftedMonth + 2) / 5) | 0) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
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

/**
 * The wall clock of an instant in a zone, as epoch milliseconds read as UTC (so its
 * `getUTCHours()` is the local hour). Throws RangeError for an invalid zone.
 */
export function wallClockOf(instant: number, timeZone: string): number {
  const zone = zoneFor(timeZone);
  return zone.utc ? instant : instant + offsetAt(zone.formatter, instant);
}

/**
 * The instant whose wall clock in the zone is `wall` (read as UTC), by localToUtc's rules: the
 * earlier of a repeated time, a skipped time moved forward by the gap.
 */
export function instantOfWallClock(wall: number, timeZone: string): number {
  const zone = zoneFor(timeZone);
  return zone.utc ? wall : localToUtc(zone.formatter, wall);
}

function unixSeconds(seconds: number): number | null {
  if (!Number.isInteger(seconds) || !inRange(seconds * 1000)) return null;
  return seconds * 1000 + 0; // + 0 turns -0 into 0
}

function inRange(ms: number): boolean {
  return ms >= MIN_MS && ms <= MAX_MS;
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
 * transition within two days (true of every zone in the tz database since 1970, and of the
 * zones test/domain/dates.test.ts reads back from 1900 on).
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
