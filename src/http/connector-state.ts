import type { Static } from '@sinclair/typebox';
import { formatDateTime } from '../domain/dates.js';
import { SESSION_STATES, type ConnectorState } from './schemas/connectors.js';

type State = Static<typeof ConnectorState>;

/**
 * A connector's live state (SmppConnectorState) as the admin API shows it, or null when the
 * connector does not run on this node. It crosses from the engine's thread as a structured
 * clone, so it is read field by field rather than trusted; `lastError.at` becomes a date-time
 * like every other time the API writes.
 */
export function connectorState(raw: unknown): State | null {
  if (!isRecord(raw)) return null;
  return {
    bound: raw.bound === true,
    session: SESSION_STATES.find((s) => s === raw.session) ?? (raw.bound === true ? 'bound' : 'idle'),
    inFlight: count(raw.inFlight),
    throughput: rate(raw.throughput),
    rateLimit: rate(raw.rateLimit),
    totals: counts(raw.totals),
    errors: counts(raw.errors),
    lastError: lastError(raw.lastError),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

function rate(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

function counts(value: unknown): Record<string, number> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([kind, n]) => [kind, count(n)]));
}

function lastError(value: unknown): State['lastError'] {
  if (!isRecord(value) || typeof value.at !== 'number' || !Number.isFinite(value.at)) return null;
  return { at: formatDateTime(value.at), kind: String(value.kind), detail: String(value.detail) };
}
