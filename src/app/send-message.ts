import type { DeliveryReportType } from '../domain/delivery-report.js';
import { parseDateTime } from '../domain/dates.js';
import { ValidationError, ValidationType, illegal } from '../domain/errors.js';
import { normaliseMsisdn, normaliseSender } from '../domain/msisdn.js';
import { countParts } from '../domain/parts.js';
import type { Account, Store } from '../store/port.js';
import { checkCallbackUrl } from '../webhooks/address-guard.js';
import type { MessageWriter } from './message-writer.js';

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
}

export type SendResult =
  | {
      readonly kind: 'created';
      readonly messageID: number;
      readonly numParts: number;
      readonly numRecipients: number;
    }
  | { readonly kind: 'too_many_parts'; readonly numParts: number; readonly numPartsMax: number };

/** The 201 body of POST /sms/message; an idempotent replay sends exactly this again. */
export function createdAnswer(messageID: number, numParts: number, numRecipients: number) {
  return { messageID, num_parts: numParts, num_recipients: numRecipients };
}
export type CreatedAnswer = ReturnType<typeof createdAnswer>;

/** An Idempotency-Key this request has claimed: the message's transaction completes it. */
export interface IdempotencyClaimed {
  readonly key: string;
  readonly token: string;
}

/** Where a message came from besides a POST: the SMPP server for customers (decisions §21). */
export interface SendOrigin {
  /** submit_sm's registered_delivery: receipts go back as deliver_sm when it asks for them. */
  readonly smppRegisteredDelivery?: number;
  /** The ids the earlier parts of a long SMPP submit were answered with. */
  readonly smppPartIds?: readonly string[];
}

export interface SendDeps {
  readonly store: Store;
  readonly now: () => number;
  readonly wake?: () => void;
  readonly writer: MessageWriter;
}

/**
 * Validates and stores one outbound message (interface.md POST /sms/message, decisions §4–§6).
 * Nothing is stored unless every rule passes; credits are reserved in the same transaction.
 */
export async function sendMessage(
  deps: SendDeps,
  account: Account,
  input: SendInput,
  claimed?: IdempotencyClaimed,
  origin: SendOrigin = {},
): Promise<SendResult> {
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
  if (!account.anySender && !(await deps.store.accounts.hasSender(account.id, sender))) {
    throw illegal('from', input.from, `The sender ${input.from} is not validated for this account`);
  }

  const { encoding, numParts } = countParts(input.body);
  if (hasValue(input.num_parts_max) && numParts > input.num_parts_max) {
    return { kind: 'too_many_parts', numParts, numPartsMax: input.num_parts_max };
  }

  const credits = numParts * recipients.length;
  const result = await deps.writer.create({
    message: {
      accountId: account.id,
      sender,
      body: input.body,
      ref: input.ref ?? null,
      callbackUrl: input.callbackURL ?? null,
      // Absent: the account default; explicit null: no reports for this message.
      deliveryReport: input.delivery_report === undefined ? account.deliveryReport : input.delivery_report,
      sendAt,
      expiresAt,
      paused: input.paused ?? false,
      createdAt: now,
      numParts,
      encoding,
      numRecipients: recipients.length,
    },
    recipients,
    credits: account.credits === null ? 0 : credits,
    metered: account.sendRate !== null,
    ...(origin.smppRegisteredDelivery && {
      smppRegisteredDelivery: origin.smppRegisteredDelivery,
      smppPartIds: origin.smppPartIds ?? [],
    }),
    ...(claimed && {
      idempotency: {
        ...claimed,
        answer: (id: number) => ({
          status: 201,
          body: JSON.stringify(createdAnswer(id, numParts, recipients.length)),
        }),
      },
    }),
  });
  if (result.kind === 'credit_insufficient') {
    throw new ValidationError({
      httpStatus: 403,
      type: ValidationType.CreditInsufficient,
      argument: 'to',
      badValue: recipients.length,
      info: `Sending needs ${credits} credits (${numParts} parts x ${recipients.length} recipients); the account has ${result.available}`,
    });
  }
  deps.wake?.();
  return { kind: 'created', messageID: result.id, numParts, numRecipients: recipients.length };
}

function hasValue<T>(value: T | null | undefined): value is T {
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
