import { createHash } from 'node:crypto';
import { IdempotencyError, illegal } from '../domain/errors.js';
import { IdempotencyClaimLostError } from '../store/idempotency.js';
import type { Account } from '../store/port.js';
import {
  createdAnswer,
  sendMessage,
  type CreatedAnswer,
  type SendDeps,
  type SendInput,
  type SendResult,
} from './send-message.js';

/** 1–255 printable ASCII characters (decisions §14). */
const KEY = /^[\x20-\x7e]{1,255}$/;

export type IdempotentResult =
  | { readonly kind: 'sent'; readonly result: SendResult }
  /** The first answer to this key, to send again unchanged. */
  | { readonly kind: 'replay'; readonly answer: CreatedAnswer };

/**
 * POST /sms/message with an Idempotency-Key (decisions §14). The key is claimed in the database
 * before anything else, so it holds across nodes and restarts; it is completed with the answer
 * in the transaction that stores the message, and given back if the request is refused, so a
 * corrected retry may use it. A replay creates nothing and reserves no credit.
 */
export async function sendIdempotently(
  deps: SendDeps,
  account: Account,
  input: SendInput,
  key: string,
): Promise<IdempotentResult> {
  if (!KEY.test(key)) {
    throw illegal('Idempotency-Key', key, 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  const claim = await deps.store.idempotency.claim(account.id, key, fingerprint(input), deps.now());
  if (claim.kind === 'replay') return { kind: 'replay', answer: storedAnswer(claim.status, claim.body) };
  if (claim.kind !== 'claimed') throw new IdempotencyError(claim.kind);
  let result: SendResult;
  try {
    result = await sendMessage(deps, account, input, { key, token: claim.token });
  } catch (error) {
    // Should the release fail too, the claim's lease runs out and a retry takes the key.
    await deps.store.idempotency.release(account.id, key, claim.token).catch(() => undefined);
    // A retry took the key over after this request's lease ran out: that one sends, not this.
    if (error instanceof IdempotencyClaimLostError) throw new IdempotencyError('in_progress');
    throw error;
  }
  // Only a created message is kept; the num_parts_max refusal stores nothing.
  if (result.kind !== 'created') await deps.store.idempotency.release(account.id, key, claim.token);
  return { kind: 'sent', result };
}

/** Equal JSON bodies (whatever their key order or spacing) have equal fingerprints. */
export function fingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The answer kept with a key, read back. Only a created message's 201 is ever kept; it is
 * rebuilt field by field, so the route sends it through the same schema (and so the same
 * bytes) as the first time.
 */
function storedAnswer(status: number, body: string): CreatedAnswer {
  const value: unknown = status === 201 ? JSON.parse(body) : null;
  const field = (name: string): unknown =>
    value !== null && typeof value === 'object' ? Object.getOwnPropertyDescriptor(value, name)?.value : null;
  const [messageID, numParts, numRecipients] = [
    field('messageID'),
    field('num_parts'),
    field('num_recipients'),
  ];
  if (typeof messageID !== 'number' || typeof numParts !== 'number' || typeof numRecipients !== 'number')
    throw new Error(`an idempotency key holds an answer this version does not know (status ${status})`);
  return createdAnswer(messageID, numParts, numRecipients);
}
