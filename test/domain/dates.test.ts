import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDateTime, formatUnixSeconds, isValidTimeZone, parseDateTime } from '../../src/domain/dates.js';

const iso = (s: string): number => Date.parse(s);
const MIN_MS = iso('0001-01-01T00:00:00.000Z');
const MAX_MS = iso('9999-12-31T23:59:59.999Z');
const YEAR_1900 = iso('1900-01-01T00:00:00.000Z');
const YEAR_2200 = iso('2200-01-01T00:00:00.000Z');

describe('parseDateTime: Unix seconds', () => {
  it('takes an integer number, negative before 1970 (decisions §6)', () => {
    expect(parseDateTime(1_763_739_000, 'UTC')).toBe(1_763_739_000_000);
    expect(parseDateTime(0, 'UTC')).toBe(0);
    expect(Object.is(parseDateTime(-0, 'UTC'), 0)).toBe(true);
    expect(parseDateTime(-1, 'UTC')).toBe(iso('1969-12-31T23:59:59Z'));
    expect(parseDateTime(-62_135_596_800, 'UTC')).toBe(MIN_MS);
  });

  it('takes a string of digits, in any zone', () => {
    expect(parseDateTime('1763739000', 'UTC')).toBe(1_763_739_000_000);
    expect(parseDateTime('1763739000', 'America/New_York')).toBe(1_763_739_000_000);
    expect(parseDateTime('0', 'UTC')).toBe(0);
    expect(parseDateTime('-86400', 'America/New_York')).toBe(iso('1969-12-31T00:00:00Z'));
  });

  it.each([
    [-62_135_596_801, 'before 0001-01-01'],
    [1.5, 'a float'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [253_402_300_800, 'past 9999-12-31'],
  ])('rejects the number %s (%s)', (input) => {
    expect(parseDateTime(input, 'UTC')).toBeNull();
  });

  it.each([
    ['--1', 'two signs'],
    ['-', 'a sign alone'],
    ['1.5', 'a float'],
    ['1e9', 'an exponent'],
    [' 1763739000', 'whitespace'],
    ['+1763739000', 'a sign'],
    ['0x10', 'hex'],
    ['1234567890123', 'more than 12 digits'],
  ])('rejects the string %j (%s)', (input) => {
    expect(parseDateTime(input, 'UTC')).toBeNull();
  });

  it('rejects non-string, non-number values a JSON body may carry', () => {
    for (const value of [true, false, null, undefined, {}, [], [1]]) {
      expect(parseDateTime(value as unknown as string, 'UTC')).toBeNull();
    }
  });
});

describe('parseDateTime: wall time without a zone', () => {
  it('reads YYYY-MM-DD hh:mm:ss in the given zone', () => {
    expect(parseDateTime('2026-11-21 15:30:00', 'UTC')).toBe(iso('2026-11-21T15:30:00Z'));
    expect(parseDateTime('2026-11-21 15:30:00', 'Europe/London')).toBe(iso('2026-11-21T15:30:00Z'));
    expect(parseDateTime('2026-07-21 15:30:00', 'Europe/London')).toBe(iso('2026-07-21T14:30:00Z'));
    expect(parseDateTime('2026-11-21 15:30:00', 'America/New_York')).toBe(iso('2026-11-21T20:30:00Z'));
    expect(parseDateTime('2026-11-21 15:30:00', 'Asia/Kolkata')).toBe(iso('2026-11-21T10:00:00Z'));
  });

  it('accepts the T separator as the same form', () => {
    expect(parseDateTime('2026-11-21T15:30:00', 'America/New_York')).toBe(iso('2026-11-21T20:30:00Z'));
  });

  it('accepts fractional seconds, truncated to milliseconds', () => {
    expect(parseDateTime('2026-11-21 15:30:00.123', 'UTC')).toBe(iso('2026-11-21T15:30:00.123Z'));
    expect(parseDateTime('2026-11-21 15:30:00.5', 'UTC')).toBe(iso('2026-11-21T15:30:00.500Z'));
    expect(parseDateTime('2026-11-21 15:30:00.123999999', 'UTC')).toBe(iso('2026-11-21T15:30:00.123Z'));
    expect(parseDateTime('2026-11-21 15:30:00.123', 'America/New_York')).toBe(
      iso('2026-11-21T20:30:00.123Z'),
    );
  });

  it('treats UTC aliases like UTC', () => {
    for (const zone of ['Etc/UTC', 'GMT', 'utc']) {
      expect(parseDateTime('2026-11-21 15:30:00', zone)).toBe(iso('2026-11-21T15:30:00Z'));
    }
  });

  describe('America/New_York', () => {
    it('moves a wall time in the spring-forward gap forward by the gap', () => {
      // 2026-03-08 02:00 EST → 03:00 EDT; 02:30 never happens.
      expect(parseDateTime('2026-03-08 02:30:00', 'America/New_York')).toBe(iso('2026-03-08T07:30:00Z'));
      expect(formatDateTime(iso('2026-03-08T07:30:00Z'))).toBe('2026-03-08T07:30:00.000Z'); // 03:30 EDT
      expect(parseDateTime('2026-03-08 01:59:59', 'America/New_York')).toBe(iso('2026-03-08T06:59:59Z'));
      expect(parseDateTime('2026-03-08 03:00:00', 'America/New_York')).toBe(iso('2026-03-08T07:00:00Z'));
    });

    it('picks the earlier instant for a wall time that happens twice', () => {
      // 2026-11-01 02:00 EDT → 01:00 EST; 01:30 happens at 05:30Z (EDT) and 06:30Z (EST).
      expect(parseDateTime('2026-11-01 01:30:00', 'America/New_York')).toBe(iso('2026-11-01T05:30:00Z'));
      expect(parseDateTime('2026-11-01 00:59:59', 'America/New_York')).toBe(iso('2026-11-01T04:59:59Z'));
      expect(parseDateTime('2026-11-01 02:00:00', 'America/New_York')).toBe(iso('2026-11-01T07:00:00Z'));
    });
  });

  describe('Europe/London', () => {
    it('moves a wall time in the spring-forward gap forward by the gap', () => {
      // 2026-03-29 01:00 GMT → 02:00 BST.
      expect(parseDateTime('2026-03-29 01:30:00', 'Europe/London')).toBe(iso('2026-03-29T01:30:00Z'));
      expect(parseDateTime('2026-03-29 00:59:59', 'Europe/London')).toBe(iso('2026-03-29T00:59:59Z'));
      expect(parseDateTime('2026-03-29 02:00:00', 'Europe/London')).toBe(iso('2026-03-29T01:00:00Z'));
    });

    it('picks the earlier instant for a wall time that happens twice', () => {
      // 2026-10-25 02:00 BST → 01:00 GMT; 01:30 happens at 00:30Z (BST) and 01:30Z (GMT).
      expect(parseDateTime('2026-10-25 01:30:00', 'Europe/London')).toBe(iso('2026-10-25T00:30:00Z'));
      expect(parseDateTime('2026-10-25 02:00:00', 'Europe/London')).toBe(iso('2026-10-25T02:00:00Z'));
    });
  });

  describe('Australia/Lord_Howe (30-minute DST, +10:30 / +11:00)', () => {
    it('reads standard and summer time', () => {
      expect(parseDateTime('2026-07-01 12:00:00', 'Australia/Lord_Howe')).toBe(iso('2026-07-01T01:30:00Z'));
      expect(parseDateTime('2026-01-01 12:00:00', 'Australia/Lord_Howe')).toBe(iso('2026-01-01T01:00:00Z'));
    });

    it('moves a wall time in the 30-minute gap forward by 30 minutes', () => {
      // 2026-10-04 02:00 +10:30 → 02:30 +11:00.
      expect(parseDateTime('2026-10-04 02:15:00', 'Australia/Lord_Howe')).toBe(iso('2026-10-03T15:45:00Z'));
    });

    it('picks the earlier instant in the 30-minute overlap', () => {
      // 2026-04-05 02:00 +11:00 → 01:30 +10:30; 01:45 happens at 14:45Z and 15:15Z.
      expect(parseDateTime('2026-04-05 01:45:00', 'Australia/Lord_Howe')).toBe(iso('2026-04-04T14:45:00Z'));
    });
  });

  it('reads any wall time back as itself, or the earlier of two', () => {
    const zones = [
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'America/Santiago',
    ];
    fc.assert(
      fc.property(fc.integer({ min: YEAR_1900, max: YEAR_2200 }), fc.constantFrom(...zones), (ms, zone) => {
        const wall = wallTime(ms, zone);
        const parsed = parseDateTime(wall, zone);
        expect(parsed).not.toBeNull();
        expect(wallTime(parsed!, zone)).toBe(wall);
        // The wall time is printed to the second, so compare with ms's whole second: an instant
        // with milliseconds in a repeated hour is 1 h and those milliseconds after the earlier one.
        const second = ms - (((ms % 1000) + 1000) % 1000);
        expect(parsed).toBeLessThanOrEqual(second);
        expect(second - parsed!).toBeLessThanOrEqual(3_600_000);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a repeated hour with milliseconds back as the earlier instant (a seed fast-check found)', () => {
    // Santiago, 2133-04-05 00:00 -03: clocks go back to 04-04 23:00 -04, which happens twice.
    const ms = 5_151_956_400_001;
    const wall = wallTime(ms, 'America/Santiago');
    expect(parseDateTime(wall, 'America/Santiago')).toBe(ms - 1 - 3_600_000);
  });

  it('reads wall times before 1970, in the zone as it was then (decisions §6)', () => {
    expect(parseDateTime('1970-01-01 00:30:00', 'Europe/Paris')).toBe(iso('1969-12-31T23:30:00Z'));
    expect(parseDateTime('1969-12-31 23:59:59', 'UTC')).toBe(iso('1969-12-31T23:59:59Z'));
    expect(parseDateTime('1969-07-20T20:17:40', 'America/New_York')).toBe(iso('1969-07-21T00:17:40Z'));
    // London kept summer time all year from 1968 to 1971.
    expect(parseDateTime('1969-01-15 12:00:00', 'Europe/London')).toBe(iso('1969-01-15T11:00:00Z'));
    expect(parseDateTime('0001-01-01 00:00:00', 'UTC')).toBe(MIN_MS);
  });

  it('rejects wall times outside 0001 … 9999 once the zone is applied', () => {
    // Intl reads a zone a day either side, and prints the year before 0001 with an era.
    expect(parseDateTime('0001-01-01 00:00:00', 'Europe/London')).toBeNull();
    expect(parseDateTime('9999-12-31 23:59:59', 'America/New_York')).toBeNull();
  });
});

describe('parseDateTime: ISO 8601 with Z', () => {
  it('reads it as UTC whatever the zone', () => {
    expect(parseDateTime('2026-11-21T15:30:00Z', 'America/New_York')).toBe(iso('2026-11-21T15:30:00Z'));
    expect(parseDateTime('2026-11-21T15:30:00.123Z', 'UTC')).toBe(iso('2026-11-21T15:30:00.123Z'));
    expect(parseDateTime('2026-11-21 15:30:00Z', 'UTC')).toBe(iso('2026-11-21T15:30:00Z'));
  });

  it('takes the whole range 0001 … 9999', () => {
    expect(parseDateTime('1970-01-01T00:00:00Z', 'UTC')).toBe(0);
    expect(parseDateTime('1969-12-31T23:59:59Z', 'UTC')).toBe(-1000);
    expect(parseDateTime('0001-01-01T00:00:00Z', 'UTC')).toBe(MIN_MS);
    expect(parseDateTime('9999-12-31T23:59:59.999Z', 'UTC')).toBe(MAX_MS);
    expect(parseDateTime('0000-12-31T23:59:59.999Z', 'UTC')).toBeNull();
  });
});

describe('parseDateTime: ISO 8601 with an offset', () => {
  it.each([
    ['2026-11-21T15:30:00-0300', '2026-11-21T18:30:00Z'],
    ['2026-11-21T15:30:00-03:00', '2026-11-21T18:30:00Z'],
    ['2026-11-21T15:30:00+05:30', '2026-11-21T10:00:00Z'],
    ['2026-11-21T15:30:00+0530', '2026-11-21T10:00:00Z'],
    ['2026-11-21T15:30:00.123+05:30', '2026-11-21T10:00:00.123Z'],
    ['2026-11-21T15:30:00.123-0300', '2026-11-21T18:30:00.123Z'],
    ['2026-11-21T15:30:00+00:00', '2026-11-21T15:30:00Z'],
    ['2026-11-21T15:30:00-00:00', '2026-11-21T15:30:00Z'],
    ['2026-11-21T15:30:00+14:00', '2026-11-21T01:30:00Z'],
    ['2026-11-21 15:30:00-03:00', '2026-11-21T18:30:00Z'],
    // An unencoded '+' in a query string arrives as a space.
    ['2026-11-21T15:30:00 05:30', '2026-11-21T10:00:00Z'],
    ['2026-11-21T15:30:00 0530', '2026-11-21T10:00:00Z'],
  ])('reads %j as %s', (input, expected) => {
    expect(parseDateTime(input, 'America/New_York')).toBe(iso(expected));
  });

  it('crosses the date line both ways', () => {
    expect(parseDateTime('2026-01-01T00:30:00+01:00', 'UTC')).toBe(iso('2025-12-31T23:30:00Z'));
    expect(parseDateTime('2025-12-31T23:30:00-01:00', 'UTC')).toBe(iso('2026-01-01T00:30:00Z'));
  });
});

describe('parseDateTime: rejects', () => {
  it.each([
    ['', 'empty'],
    ['garbage', 'garbage'],
    ['now', 'a word'],
    ['2026-02-30 12:00:00', 'February 30'],
    ['2026-02-29 12:00:00', 'February 29 in a common year'],
    ['2100-02-29 12:00:00', 'February 29 in 2100'],
    ['2026-04-31 12:00:00', 'April 31'],
    ['2026-13-01 12:00:00', 'month 13'],
    ['2026-00-10 12:00:00', 'month 0'],
    ['2026-01-00 12:00:00', 'day 0'],
    ['2026-11-21 25:00:00', 'hour 25'],
    ['2026-11-21 24:00:00', 'hour 24'],
    ['2026-11-21 12:60:00', 'minute 60'],
    ['2026-11-21 12:00:60', 'leap second'],
    ['2026-11-21', 'a date alone'],
    ['15:30:00', 'a time alone'],
    ['2026-11-21 15:30', 'no seconds'],
    ['2026-11-21T15:30Z', 'no seconds with Z'],
    ['2026-11-21T15:30+05:30', 'no seconds with an offset'],
    ['2026-11-21T15:30:00.Z', 'an empty fraction'],
    ['2026-11-21T15:30:00.1234567890Z', 'ten fraction digits'],
    ['2026-11-21T15:30:00,123Z', 'a comma fraction'],
    ['2026-11-21t15:30:00z', 'lower-case t and z'],
    ['2026-11-21T15:30:00+05', 'an hour-only offset'],
    ['2026-11-21T15:30:00+5:30', 'a one-digit offset hour'],
    ['2026-11-21T15:30:00+24:00', 'offset hour 24'],
    ['2026-11-21T15:30:00+05:60', 'offset minute 60'],
    ['2026-11-21T15:30:00 Europe/London', 'a zone name'],
    ['2026-11-21T15:30:00 UTC', 'UTC as a word'],
    ['2026-11-21  15:30:00', 'two spaces'],
    [' 2026-11-21 15:30:00', 'a leading space'],
    ['2026-11-21 15:30:00 ', 'a trailing space'],
    ['26-11-21 15:30:00', 'a two-digit year'],
    ['+02026-11-21T15:30:00Z', 'an expanded year'],
    ['2026/11/21 15:30:00', 'slashes'],
    ['21-11-2026 15:30:00', 'day first'],
    ['Sat, 21 Nov 2026 15:30:00 GMT', 'an HTTP date'],
    ['２０２６-11-21 15:30:00', 'full-width digits'],
  ])('%j (%s)', (input) => {
    expect(parseDateTime(input, 'UTC')).toBeNull();
  });
});

describe('time zones', () => {
  it.each(['UTC', 'Europe/London', 'America/New_York', 'Australia/Lord_Howe', 'Etc/GMT+5', 'US/Eastern'])(
    'accepts %j',
    (zone) => {
      expect(isValidTimeZone(zone)).toBe(true);
    },
  );

  it.each(['', 'Mars/Olympus', 'Europe/Londres', '+05:30', '-03:00', 'Z', 'UTC+1'])('rejects %j', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
  });

  it('throws for an invalid zone: a configuration fault, not the input', () => {
    expect(() => parseDateTime('2026-11-21 15:30:00', 'Mars/Olympus')).toThrow(RangeError);
    expect(() => parseDateTime('2026-11-21T15:30:00Z', 'Mars/Olympus')).toThrow(RangeError);
  });
});

describe('formatDateTime', () => {
  it('prints RFC 3339 UTC with milliseconds and Z', () => {
    expect(formatDateTime(iso('2026-11-21T15:30:00.123Z'))).toBe('2026-11-21T15:30:00.123Z');
    expect(formatDateTime(0)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('round-trips through parseDateTime', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: YEAR_2200 }),
        fc.constantFrom('UTC', 'America/New_York', 'Australia/Lord_Howe'),
        (ms, zone) => {
          const text = formatDateTime(ms);
          const parsed = parseDateTime(text, zone);
          expect(parsed).toBe(ms);
          expect(formatDateTime(parsed as number)).toBe(text);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('formatUnixSeconds', () => {
  it.each([
    [0, '0.000000'],
    [1, '0.001000'],
    [1_763_739_000_123, '1763739000.123000'],
    [1_763_739_000_000, '1763739000.000000'],
    [1_763_739_000_123.456, '1763739000.123456'],
    [999, '0.999000'],
    [-1, '-0.001000'],
  ])('prints %s as %j', (ms, expected) => {
    expect(formatUnixSeconds(ms)).toBe(expected);
  });

  it('reads back as the same millisecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_MS }), (ms) => {
        const text = formatUnixSeconds(ms);
        expect(text).toMatch(/^\d+\.\d{6}$/);
        const [seconds, fraction] = text.split('.') as [string, string];
        expect(Number(seconds) * 1000 + Number(fraction.slice(0, 3))).toBe(ms);
      }),
    );
  });
});

/** `YYYY-MM-DD hh:mm:ss` of an instant in a zone, straight from Intl. */
function wallTime(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(ms);
  const get = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`;
}
