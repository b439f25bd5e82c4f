/**
 * What a POST /sms/message would do, decided without writing anything: the validation of
 * decisions §4–§6 and the sending rules of §17–§20 (suppression, smart encoding, delivery
 * windows). The real send (send-message.ts) stores this plan; the preview (preview-send.ts)
 * describes it. One code path, so a preview can never disagree with the send it previews.
 */
import type { DeliveryReportType } from '../domain/delivery-report.js';
import { parseDateTime, isValidTimeZone } from '../domain/dates.js';
import {
  RECIPIENT_ZONE,
  minuteOfDay,
  windowOpensAt,
  type DeliveryWindow,
  type WindowMinutes,
} from '../domain/delivery-window.js';
import { ValidationError, ValidationType, illegal } from '../domain/errors.js';
import { normaliseMsisdn, normaliseSender } from '../domain/msisdn.js';
import { countParts, type Encoding } from '../domain/parts.js';
import { recipientZone } from '../domain/recipient-zone.js';
import { smartEncode } from '../domain/smart-encoding.js';
import type { Account, Store } from '../store/port.js';
import { checkCallbackUrl } from '../webhooks/address-guard.js';

/** The POST /sms/message body after schema validation (types and lengths already hold). */
export interface SendInput {
  readonly to: readonly string[];
  readonly from: string;
  readonly body: string;
  readonly send_at?: string | number | null;
  readonly expires_at?: string | number | null;
  readonly ttl?: string | number | null;
  readonly num_parts_max?: number | null;
  readonly ref?: string | null;
  readonly callbackURL?: string | null;
  readonly delivery_report?: DeliveryReportType | null;
  readonly paused?: boolean | null;
  /** Default: the account's smart_encoding (decisions §19). */
  readonly smart_encoding?: boolean | null;
  /** Default: the account's window; null: none (decisions §20). */
  readonly window?: WindowInput | null;
}

/** The body field `window` as the schema lets it through; its values are checked here. */
export interface WindowInput {
  readonly start: string;
  readonly end: string;
  readonly timezone: string;
}

export interface SendPlan {
  readonly kind: 'planned';
  /** The moment the plan was made: the message's created_at. */
  readonly now: number;
  readonly sender: string;
  /** The body as it will be sent (after smart encoding). */
  readonly body: string;
  readonly encoding: Encoding;
  readonly numParts: number;
  readonly sendAt: number;
  readonly expiresAt: number | null;
  readonly paused: boolean;
  /** Unique, normalised, in the order given. */
  readonly recipients: readonly string[];
  readonly suppressed: ReadonlySet<string>;
  /** Recipients whose window opens after the message is due, and when it opens. */
  readonly releaseAt: ReadonlyMap<string, number>;
  /** The window that applies (checked); null: any hour. */
  readonly window: DeliveryWindow | null;
  /** parts × recipients that are not suppressed. */
  readonly credits: number;
}

export type PlanResult =
  SendPlan | { readonly kind: 'too_many_parts'; readonly numParts: number; readonly numPartsMax: number };

export interface PlanDeps {
  readonly store: Pick<Store, 'accounts' | 'suppressions'>;
  readonly now: () => number;
}

export async function planSend(deps: PlanDeps, account: Account, input: SendInput): Promise<PlanResult> {
  const now = deps.now();
  const recipients = uniqueRecipients(input.to);
  const sender = normaliseSender(input.from);
  if (sender === null) {
    throw illegal(
      'from',
      input.from,
      'from must be an msisdn in E.164 format or an alphanumeric sender id of 1-11 characters',
    );
  }
  if (hasValue(input.ttl) && hasValue(input.expires_at)) {
    throw new ValidationError({
      httpStatus: 400,
      type: ValidationType.ArgConflict,
      argument: 'ttl',
      info: 'Give either ttl or expires_at, not both',
    });
  }
  const sendAt = hasValue(input.send_at) ? dateArgument('send_at', input.send_at, account.timezone) : now;
  const expiresAt = expiry(input, sendAt, account.timezone);
  if (hasValue(input.callbackURL) && !checkCallbackUrl(input.callbackURL).ok) {
    throw illegal('callbackURL', input.callbackURL, 'callbackURL must be an http or https URL');
  }
  const window = input.window === undefined ? account.window : input.window;
  const minutes = window === null ? null : checkWindow(window, 'window');
  if (!account.anySender && !(await deps.store.accounts.hasSender(account.id, sender))) {
    throw illegal('from', input.from, `The sender ${input.from} is not validated for this account`);
  }

  const body = (input.smart_encoding ?? account.smartEncoding) ? smartEncode(input.body) : input.body;
  const { encoding, numParts } = countParts(body);
  if (hasValue(input.num_parts_max) && numParts > input.num_parts_max) {
    return { kind: 'too_many_parts', numParts, numPartsMax: input.num_parts_max };
  }
  const suppressed = await deps.store.suppressions.suppressedAmong(account.id, recipients);
  const releaseAt =
    window === null || minutes === null
      ? new Map<string, number>()
      : windowOpenings(window, minutes, recipients, suppressed, Math.max(sendAt, now), account.timezone);
  return {
    kind: 'planned',
    now,
    sender,
    body,
    encoding,
    numParts,
    sendAt,
    expiresAt,
    paused: input.paused ?? false,
    recipients,
    suppressed,
    releaseAt,
    window: window === null ? null : { start: window.start, end: window.end, timezone: window.timezone },
    credits: numParts * (recipients.length - suppressed.size),
  };
}

/**
 * When each recipient's window opens, for those whose window is closed when the message is due
 * (`due`). Computed once per zone: a message to a million numbers has a handful of zones.
 */
function windowOpenings(
  window: DeliveryWindow,
  minutes: WindowMinutes,
  recipients: readonly string[],
  suppressed: ReadonlySet<string>,
  due: number,
  accountZone: string,
): Map<string, number> {
  const openings = new Map<string, number>();
  const byZone = new Map<string, number>();
  for (const msisdn of recipients) {
    if (suppressed.has(msisdn)) continue;
    const zone = window.timezone === RECIPIENT_ZONE ? recipientZone(msisdn, accountZone) : window.timezone;
    let opens = byZone.get(zone);
    if (opens === undefined) {
      opens = windowOpensAt(minutes, zone, due);
      byZone.set(zone, opens);
    }
    if (opens > due) openings.set(msisdn, opens);
  }
  return openings;
}

/** A window from a body or an account setting: HH:MM bounds that differ, a known zone. */
export function checkWindow(window: WindowInput, argument: string): WindowMinutes {
  const start = minuteOfDay(window.start);
  const end = minuteOfDay(window.end);
  if (start === null || end === null) {
    throw illegal(
      argument,
      window,
      `${argument}.start and ${argument}.end must be times of day as HH:MM, 00:00 to 23:59`,
    );
  }
  if (start === end) {
    throw illegal(
      argument,
      window,
      `${argument}.start and ${argument}.end must differ; leave ${argument} out to send at any hour`,
    );
  }
  if (window.timezone !== RECIPIENT_ZONE && !isValidTimeZone(window.timezone)) {
    throw illegal(
      argument,
      window,
      `${argument}.timezone must be an IANA time zone name such as Europe/London, or "recipient" for the zone of each number`,
    );
  }
  return { start, end };
}

export function hasValue<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** Normalised, first occurrence kept, so `num_recipients` counts unique numbers. */
function uniqueRecipients(to: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const raw of to) {
    const msisdn = normaliseMsisdn(raw);
    if (msisdn === null) {
      throw illegal('to', raw, `${raw} is not a valid msisdn; use E.164 format such as +61491570156`);
    }
    seen.add(msisdn);
  }
  return [...seen];
}

function dateArgument(name: string, value: string | number, timeZone: string): number {
  const ms = parseDateTime(value, timeZone);
  if (ms === null) {
    throw illegal(
      name,
      value,
      `${name} must be Unix seconds, "YYYY-MM-DD hh:mm:ss" (${timeZone}), or ISO 8601 with Z or an offset such as -0300`,
    );
  }
  return ms;
}

function expiry(input: SendInput, sendAt: number, timeZone: string): number | null {
  let expiresAt: number | null = null;
  if (hasValue(input.expires_at)) {
    expiresAt = dateArgument('expires_at', input.expires_at, timeZone);
    if (expiresAt <= sendAt)
      throw illegal('expires_at', input.expires_at, 'expires_at must be after send_at');
  } else if (hasValue(input.ttl)) {
    // A numeric string or a JSON non-negative integer (decisions §4); 0 expires at send_at.
    const ttl = String(input.ttl).trim();
    if (!/^\d{1,10}$/.test(ttl)) {
      throw illegal('ttl', input.ttl, 'ttl must be a whole number of seconds, 0 or more');
    }
    expiresAt = sendAt + Number(ttl) * 1000;
  }
  return expiresAt;
}
