/**
 * The suppression list's rules (decisions §17), shared by /v1/suppressions and the CLI.
 */
import { formatDateTime } from '../domain/dates.js';
import { NotFoundError, illegal } from '../domain/errors.js';
import { normaliseMsisdn } from '../domain/msisdn.js';
import type { Store } from '../store/port.js';
import type { Suppression } from '../store/suppressions.js';

/** The default and largest page, as on the message lists. */
const DEFAULT_LIMIT = 100;

export function suppressionView(s: Suppression) {
  return { msisdn: s.msisdn, reason: s.reason, created_at: formatDateTime(s.createdAt) };
}

export function suppressionMsisdn(raw: string): string {
  const msisdn = normaliseMsisdn(raw);
  if (msisdn === null)
    throw illegal('msisdn', raw, `${raw} is not an msisdn; use E.164 format such as +61491570156`);
  return msisdn;
}

export async function listSuppressions(
  store: Store,
  accountId: number,
  page: { readonly limit?: number | undefined; readonly offset?: number | undefined },
) {
  const { rows, more } = await store.suppressions.list(
    accountId,
    page.limit ?? DEFAULT_LIMIT,
    page.offset ?? 0,
  );
  return { suppressions: rows.map(suppressionView), more_results: more };
}

export async function addSuppression(store: Store, accountId: number, raw: string, now: number) {
  return suppressionView(await store.suppressions.add(accountId, suppressionMsisdn(raw), 'manual', now));
}

export async function removeSuppression(store: Store, accountId: number, raw: string) {
  const msisdn = suppressionMsisdn(raw);
  const removed = await store.suppressions.remove(accountId, msisdn);
  if (!removed) throw new NotFoundError(`${msisdn} is not on the suppression list`);
  return suppressionView(removed);
}
