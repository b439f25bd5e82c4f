import { parseDateTime } from '../domain/dates.js';
import { QueryError } from '../domain/errors.js';
import { normaliseMsisdn, normaliseSender } from '../domain/msisdn.js';
import { STATUSES, isStatus, type Status } from '../domain/status.js';
import type { SortKey } from '../store/port.js';

/**
 * Parsing of the list endpoints' query parameters (interface.md, decisions §4 and §11), shared
 * by the outbound and inbound lists. Every malformed value is a QueryError: 400, VAL_ILLEGAL.
 */
export type RawQuery = Readonly<Record<string, string | readonly string[] | undefined>>;

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;
export const DEFAULT_WINDOW_MS = 24 * 60 * 60 * 1000;

function single(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new QueryError(name, `${name} may be given only once`);
  return value;
}

/** Every value of a repeatable parameter, comma lists split. */
function list(query: RawQuery, name: string): string[] | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  const values = typeof value === 'string' ? [value] : value;
  return values.flatMap((v) => v.split(',')).filter((v) => v !== '');
}

export function integerParam(query: RawQuery, name: string, min: number, max: number): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (!/^\d{1,16}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new QueryError(name, `${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

export function booleanParam(query: RawQuery, name: string): boolean | undefined {
  const raw = single(query, name)?.trim().toLowerCase();
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new QueryError(name, `${name} must be true or false`);
}

export function dateParam(query: RawQuery, name: string, timeZone: string): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const ms = parseDateTime(raw.trim(), timeZone);
  if (ms === null) {
    throw new QueryError(
      name,
      `${name} must be Unix seconds, "YYYY-MM-DD hh:mm:ss", or ISO 8601 with Z or an offset`,
    );
  }
  return ms;
}

/** `ref=` (empty) selects messages without a reference. */
export function refParam(query: RawQuery): string | null | undefined {
  const raw = single(query, 'ref');
  if (raw === undefined) return undefined;
  return raw === '' ? null : raw;
}

/** Sender or recipient numbers: msisdns are normalised, alphanumeric ids kept as given. */
export function numberListParam(query: RawQuery, name: string): string[] | undefined {
  const values = list(query, name);
  if (values === undefined) return undefined;
  return values.map((v) => {
    const normalised = normaliseSender(v);
    if (normalised === null)
      throw new QueryError(name, `${name} must be msisdns or sender ids, comma-separated or repeated`);
    return normalised;
  });
}

/** One msisdn (`to=`): `+` optional, a leading space read as `+` (decisions §5). */
export function msisdnParam(query: RawQuery, name: string): string | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const msisdn = normaliseMsisdn(raw);
  if (msisdn === null)
    throw new QueryError(name, `${name} must be one msisdn in E.164 format, e.g. +61491570156`);
  return msisdn;
}

/** A recipient status name of decisions §7 (`status=`). */
export function statusParam(query: RawQuery): Status | undefined {
  const raw = single(query, 'status');
  if (raw === undefined) return undefined;
  if (!isStatus(raw)) throw new QueryError('status', `status must be one of ${STATUSES.join(', ')}`);
  return raw;
}

export function sortParam<F extends string>(query: RawQuery, fields: readonly F[]): SortKey<F>[] {
  const values = list(query, 'sort') ?? ['-messageID'];
  const keys: SortKey<F>[] = [];
  for (const value of values) {
    const trimmed = value.trim();
    const descending = trimmed.startsWith('-');
    // An unencoded '+' in a query string arrives as a space, already trimmed away.
    const name = trimmed.replace(/^[-+]/, '');
    if (!(fields as readonly string[]).includes(name)) {
      throw new QueryError(
        'sort',
        `sort fields are ${fields.join(', ')}, each optionally prefixed with - for descending`,
      );
    }
    if (!keys.some((k) => k.field === name)) keys.push({ field: name as F, descending });
  }
  return keys;
}

/** The paging and time-window parameters both lists share. */
export function commonListParams(query: RawQuery, timeZone: string, now: number) {
  const idMin = integerParam(query, 'messageID.min', 0, Number.MAX_SAFE_INTEGER);
  const idMax = integerParam(query, 'messageID.max', 0, Number.MAX_SAFE_INTEGER);
  const createdMin = dateParam(query, 'created_at.min', timeZone) ?? now - DEFAULT_WINDOW_MS;
  const createdMax = dateParam(query, 'created_at.max', timeZone);
  const limit = integerParam(query, 'limit', 0, MAX_LIMIT) ?? DEFAULT_LIMIT;
  const offset = integerParam(query, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
  return {
    ...(idMin !== undefined && { idMin }),
    ...(idMax !== undefined && { idMax }),
    createdMin,
    ...(createdMax !== undefined && { createdMax }),
    limit,
    offset,
  };
}
