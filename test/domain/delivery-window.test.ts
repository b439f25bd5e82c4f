import { describe, expect, it } from 'vitest';
import { isOpenAt, minuteOfDay, windowOpensAt } from '../../src/domain/delivery-window.js';
import { countryOf, recipientZone, zoneOfCountry } from '../../src/domain/recipient-zone.js';

const at = (iso: string) => Date.parse(iso);
const w = (start: string, end: string) => ({ start: minuteOfDay(start)!, end: minuteOfDay(end)! });

describe('delivery windows (decisions §20)', () => {
  it('reads HH:MM and nothing else', () => {
    expect(minuteOfDay('00:00')).toBe(0);
    expect(minuteOfDay('23:59')).toBe(1439);
    for (const bad of ['24:00', '9:00', '09:60', '0900', '09:00:00', ' 09:00'])
      expect(minuteOfDay(bad), bad).toBe(null);
  });

  it('is open from start to just before end, and across midnight when end comes first', () => {
    const day = w('09:00', '17:00');
    expect([539, 540, 1019, 1020].map((m) => isOpenAt(day, m))).toEqual([false, true, true, false]);
    const night = w('22:00', '06:00');
    expect([1319, 1320, 0, 359, 360, 720].map((m) => isOpenAt(night, m))).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('opens at once inside the window, else at the next start, today or tomorrow', () => {
    const day = w('09:00', '17:00');
    expect(windowOpensAt(day, 'UTC', at('2026-06-01T10:00:00Z'))).toBe(at('2026-06-01T10:00:00Z'));
    expect(windowOpensAt(day, 'UTC', at('2026-06-01T08:59:59Z'))).toBe(at('2026-06-01T09:00:00Z'));
    expect(windowOpensAt(day, 'UTC', at('2026-06-01T17:00:00Z'))).toBe(at('2026-06-02T09:00:00Z'));
    // Paris is UTC+2 in June: 09:00 local is 07:00Z.
    expect(windowOpensAt(day, 'Europe/Paris', at('2026-06-01T16:00:00Z'))).toBe(at('2026-06-02T07:00:00Z'));
  });

  it('spans midnight: open after start and before end, closed in between', () => {
    const night = w('22:00', '06:00');
    expect(windowOpensAt(night, 'UTC', at('2026-06-01T23:30:00Z'))).toBe(at('2026-06-01T23:30:00Z'));
    expect(windowOpensAt(night, 'UTC', at('2026-06-02T05:59:00Z'))).toBe(at('2026-06-02T05:59:00Z'));
    expect(windowOpensAt(night, 'UTC', at('2026-06-02T06:00:00Z'))).toBe(at('2026-06-02T22:00:00Z'));
  });

  it('follows daylight saving: the opening moves with the local clock', () => {
    const day = w('09:00', '17:00');
    // New York: EST (UTC-5) until 2026-03-08 02:00, then EDT (UTC-4).
    expect(windowOpensAt(day, 'America/New_York', at('2026-03-07T23:00:00Z'))).toBe(
      at('2026-03-08T13:00:00Z'),
    );
    expect(windowOpensAt(day, 'America/New_York', at('2026-03-07T03:00:00Z'))).toBe(
      at('2026-03-07T14:00:00Z'),
    );
    // London goes back on 2026-10-25: 09:00 is 08:00Z the day before, 09:00Z on the day.
    expect(windowOpensAt(day, 'Europe/London', at('2026-10-24T06:00:00Z'))).toBe(at('2026-10-24T08:00:00Z'));
    expect(windowOpensAt(day, 'Europe/London', at('2026-10-25T06:00:00Z'))).toBe(at('2026-10-25T09:00:00Z'));
  });

  it('opens a window whose start the clocks skip at the jump, and a repeated start the first time', () => {
    // 02:30 does not exist in New York on 2026-03-08: the clock goes from 01:59:59 EST to 03:00 EDT (07:00Z).
    expect(windowOpensAt(w('02:30', '06:00'), 'America/New_York', at('2026-03-08T05:00:00Z'))).toBe(
      at('2026-03-08T07:00:00Z'),
    );
    // 01:30 happens twice on 2026-11-01 (EDT, then EST): the first, 05:30Z.
    expect(windowOpensAt(w('01:30', '06:00'), 'America/New_York', at('2026-11-01T04:00:00Z'))).toBe(
      at('2026-11-01T05:30:00Z'),
    );
  });
});

describe('the zone of a recipient', () => {
  it("is its country's, the capital's where there are several, the account's where there is no country", () => {
    expect(countryOf('+61491570156')).toBe('AU');
    expect(countryOf('+447700900123')).toBe('GB');
    expect(countryOf('+15555550123')).toBe('US');
    expect(countryOf('+14165550199')).toBe('CA');
    expect(zoneOfCountry('GB')).toBe('Europe/London');
    expect(recipientZone('+61491570156', 'UTC')).toBe('Australia/Sydney');
    expect(recipientZone('+12025550123', 'UTC')).toBe('America/New_York');
    expect(recipientZone('+4915112345678', 'UTC')).toBe('Europe/Berlin');
    expect(recipientZone('+819012345678', 'UTC')).toBe('Asia/Tokyo');
    expect(recipientZone('+80012345678', 'Europe/Paris')).toBe('Europe/Paris');
  });
});
