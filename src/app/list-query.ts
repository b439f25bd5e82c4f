import { parseDateTime } from '../domain/dates.js';
import { QueryError } from '../domain/errors.js';
import { normaliseMsisdn, normaliseSender } from '../domain/msisdn.js';
import type { SortKey } from '../store/port.js';

/**
 * The list endpoints' query parameters (interface.md, decisions §4 and §11), shared by the
 * outbound and inbound lists, and the CLI's text options. Every malformed value is a
 * QueryError: 400, VAL_ILLEGAL.
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

export function integerParam(query: RawQuery, name: string, min: number, max: number): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (!/^\d{1,16}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new QueryError(name, `${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

/**
 * The parameters both lists share, as the HTTP edge hands them over: already of their JSON
 * types, with lists split (its schema guarantees the types and ranges).
 */
export interface ListQuery {
  readonly from?: readonly string[];
  readonly ref?: string;
  readonly completed?: boolean;
  readonly 'messageID.min'?: number;
  readonly 'messageID.max'?: number;
  readonly 'created_at.min'?: string;
  readonly 'created_at.max'?: string;
  readonly limit?: number;
  readonly offset?: number;
  readonly sort?: readonly string[];
}

export function dateParam(name: string, raw: string | undefined, timeZone: string): number | undefined {
  if (raw === undefined) return undefined;
  const ms = parseDateTime(raw.trim(), timeZone);
  if (ms === null) {
    throw new QueryError(
      name,
      `${name} must be Unix seconds, "YYYY-MM-DD hh:mm:ss", or ISO 8601 with Z, an offset or neither`,
    );
  }
  return ms;
}

/** `ref=` (empty) selects messages without a reference. */
export function refParam(ref: string | undefined): string | null | undefined {
  if (ref === undefined) return undefined;
  return ref === '' ? null : ref;
}

/** Sender or recipient numbers: msisdns are normalised, alphanumeric ids kept as given. */
export function numberListParam(name: string, values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values.map((v) => {
    const normalised = normaliseSender(v);
    if (normalised === null)
      throw new QueryError(name, `${name} must be msisdns or sender ids, comma-separated or repeated`);
    return normalised;
  });
}

/** One msisdn (`to=`): `+` optional, a leading space read as `+` (decisions §5). */
export function msisdnParam(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const msisdn = normaliseMsisdn(raw);
  if (msisdn === null)
    throw new QueryError(name, `${name} must be one msisdn in E.164 format, e.g. +61491570156`);
  return msisdn;
}

export function sortParam<F extends string>(
  values: readonly string[] | undefined,
  fields: readonly F[],
): SortKey<F>[] {
  const keys: SortKey<F>[] = [];
  for (const value of values ?? ['-messageID']) {
    const descending = value.startsWith('-');
    const name = descending ? value.slice(1) : value;
    const field = fields.find((f) => f === name);
    if (field === undefined) {
      throw new QueryError(
        'sort',
        `sort fields are ${fields.join(', ')}, each optionally prefixed with - for descending`,
      );
    }
    if (!keys.some((k) => k.field === field)) keys.push({ field, descending });
  }
  return keys;
}

/** The paging and time-window parameters both lists share. */
export function commonListParams(query: ListQuery, timeZone: string, now: number) {
  const idMin = query['messageID.min'];
  const idMax = query['messageID.max'];
  const createdMin =
    dateParam('created_at.min', query['created_at.min'], timeZone) ?? now - DEFAULT_WINDOW_MS;
  const createdMax = dateParam('created_at.max', query['created_at.max'], timeZone);
  return {
    ...(idMin !== undefined && { idMin }),
    ...(idMax !== undefined && { idMax }),
    createdMin,
    ...(createdMax !== undefined && { createdMax }),
    limit: query.limit ?? DEFAULT_LIMIT,
    offset: query.offset ?? 0,
  };
}
