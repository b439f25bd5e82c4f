/**
 * SMPP 3.4 time fields (§7.1.1): schedule_delivery_time and validity_period, absolute
 * `YYMMDDhhmmsstnnp` (nn quarter hours from UTC, p + or -) or relative `YYMMDDhhmmss000R`.
 */
export type SmppTime =
  { readonly kind: 'none' } | { readonly kind: 'at'; readonly ms: number } | { readonly kind: 'invalid' };

export function parseSmppTime(value: string, now: number): SmppTime {
  if (value === '') return { kind: 'none' };
  const m = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d)(\d{2})([+\-R])$/.exec(value);
  if (!m) return { kind: 'invalid' };
  const [yy, mo, dd, hh, mi, ss, tenths, nn] = m.slice(1, 9).map(Number) as number[];
  const sign = m[9];
  if (sign === 'R') {
    // Relative: years and months are counted on the calendar from now.
    const d = new Date(now);
    d.setUTCFullYear(d.getUTCFullYear() + yy!, d.getUTCMonth() + mo!, d.getUTCDate() + dd!);
    return { kind: 'at', ms: d.getTime() + ((hh! * 60 + mi!) * 60 + ss!) * 1000 };
  }
  if (mo! < 1 || mo! > 12 || dd! < 1 || dd! > 31 || hh! > 23 || mi! > 59 || ss! > 59 || nn! > 48)
    return { kind: 'invalid' };
  const local = Date.UTC(2000 + yy!, mo! - 1, dd!, hh!, mi!, ss!, tenths! * 100);
  const offset = nn! * 15 * 60_000;
  return { kind: 'at', ms: sign === '+' ? local - offset : local + offset };
}

/** YYMMDDhhmmss000+ in UTC, as query_sm_resp.final_date. */
export function formatSmppTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}` +
    `${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}000+`
  );
}
