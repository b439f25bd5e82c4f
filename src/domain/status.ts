/** Recipient statuses and their codes (decisions §7). */
export const STATUS_CODES = {
  pending: 100,
  submitted: 110,
  sent: 120,
  delivered: 200,
  cancelled: 400,
  expired: 410,
  aborted: 420,
  rejected: 430,
  failed: 440,
  deleted: 450,
  unknown: 500,
} as const;

export type Status = keyof typeof STATUS_CODES;

/** All eleven names in the order of the table; counts always carry every one of them. */
export const STATUSES = Object.keys(STATUS_CODES) as Status[];

export const FINAL_STATUSES: ReadonlySet<Status> = new Set<Status>([
  'delivered',
  'cancelled',
  'expired',
  'aborted',
  'rejected',
  'failed',
  'deleted',
  'unknown',
]);

export function isFinal(status: Status): boolean {
  return FINAL_STATUSES.has(status);
}

/**
 * Every allowed change. A final status has no way out; anything not listed is refused by
 * the store, so a late or duplicated carrier event can never rewrite history.
 */
export const TRANSITIONS: { readonly [S in Status]: readonly Status[] } = {
  // aborted: its number was suppressed while it waited (decisions §17, code 421).
  pending: ['submitted', 'cancelled', 'expired', 'aborted'],
  // unknown: a submit whose node died before its outcome was recorded, with
  // SMSGW_ON_INTERRUPTED=unknown (decisions §23): it may or may not have reached the carrier.
  submitted: ['sent', 'cancelled', 'expired', 'aborted', 'rejected', 'unknown'],
  sent: ['delivered', 'expired', 'rejected', 'failed', 'deleted', 'unknown'],
  delivered: [],
  cancelled: [],
  expired: [],
  aborted: [],
  rejected: [],
  failed: [],
  deleted: [],
  unknown: [],
};

export function canTransition(from: Status, to: Status): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Every status a change to `to` may come from: the WHERE clause of a guarded update. */
export function sourcesOf(to: Status): Status[] {
  return STATUSES.filter((from) => TRANSITIONS[from].includes(to));
}

export function isStatus(value: string): value is Status {
  return Object.hasOwn(STATUS_CODES, value);
}

export type StatusCounts = Record<Status, number>;

export function emptyCounts(): StatusCounts {
  return Object.fromEntries(STATUSES.map((s) => [s, 0])) as StatusCounts;
}
