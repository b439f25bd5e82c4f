import type { Account, QueuedWork, Store } from '../store/port.js';
import { ValidationError, ValidationType } from '../domain/errors.js';
import type { MessageWriter } from './message-writer.js';
import { planSend, type SendInput } from './send-plan.js';

export type { SendInput } from './send-plan.js';

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
  /** Wakes the engine for these kinds of work; for every kind when none are named. */
  readonly wake?: (kinds?: readonly QueuedWork[]) => void;
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
  const plan = await planSend(deps, account, input);
  if (plan.kind !== 'planned') return plan;
  const { recipients, numParts, credits } = plan;
  const result = await deps.writer.create({
    message: {
      accountId: account.id,
      sender: plan.sender,
      body: plan.body,
      ref: input.ref ?? null,
      callbackUrl: input.callbackURL ?? null,
      // Absent: the account default; explicit null: no reports for this message.
      deliveryReport: input.delivery_report === undefined ? account.deliveryReport : input.delivery_report,
      sendAt: plan.sendAt,
      expiresAt: plan.expiresAt,
      paused: plan.paused,
      createdAt: plan.now,
      numParts,
      encoding: plan.encoding,
      numRecipients: recipients.length,
      window: plan.window,
    },
    recipients,
    suppressed: plan.suppressed,
    releaseAt: plan.releaseAt,
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
      info: creditInfo(credits, numParts, recipients.length - plan.suppressed.size, result.available),
    });
  }
  // Recipients handed to this node's engine need no wake-up: a claim would find nothing, and on
  // SQLite its turn would take the writer from the API for it.
  if (result.queued.length > 0) deps.wake?.(result.queued);
  return { kind: 'created', messageID: result.id, numParts, numRecipients: recipients.length };
}

/** The CREDIT_INSUFFICIENT sentence, shared with the preview. */
export function creditInfo(credits: number, numParts: number, recipients: number, available: number): string {
  return `Sending needs ${credits} credits (${numParts} parts x ${recipients} recipients); the account has ${available}`;
}
