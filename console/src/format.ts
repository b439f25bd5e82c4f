/** How times and numbers read in the console: local time of the browser, with the zone named. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const number = new Intl.NumberFormat();

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : dateTime.format(ms);
}

export function formatNumber(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : number.format(n);
}

/** A datetime-local input's value (browser local time) as ISO 8601 with Z, for the API. */
export function localInputToIso(value: string): string | undefined {
  if (value === '') return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

export const timeZoneName = Intl.DateTimeFormat().resolvedOptions().timeZone;
