/**
 * Standard Webhooks signing (decisions §10): receivers can verify our deliveries with any
 * Standard Webhooks library instead of code written against smsgw.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { boundedCache } from '../bounded-cache.js';

const SECRET_PREFIX = 'whsec_';
/** 256 bits of key for HMAC-SHA256, the size the Standard Webhooks reference libraries generate. */
const SECRET_BYTES = 32;

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** Keys decoded from secrets, which every attempt of an account signs with again. */
const MAX_KEYS = 1_000;
const keys = boundedCache<string, Buffer>(MAX_KEYS);

function secretKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (key !== undefined) return key;
  // The prefix is optional on input because the reference libraries accept bare base64 too.
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty or not base64');
  keys.set(secret, key);
  return key;
}

/**
 * `v1,<sig>` for each secret, space-separated. Several secrets are signed during a rotation's
 * grace period so receivers still holding the old secret keep verifying.
 */
export function signatureHeader(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): string {
  if (secrets.length === 0) throw new Error('at least one webhook secret is required');
  if (!Number.isSafeInteger(timestampSeconds)) throw new Error('webhook timestamp must be whole seconds');
  const signedContent = `${id}.${timestampSeconds}.${body}`;
  const sign = (secret: string) =>
    `v1,${createHmac('sha256', secretKey(secret)).update(signedContent).digest('base64')}`;
  // One secret outside a rotation's grace period: no array to join.
  return secrets.length === 1 ? sign(secrets[0]!) : secrets.map(sign).join(' ');
}

export interface WebhookHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
  readonly 'content-type': 'application/json';
  readonly [name: string]: string;
}

export function webhookHeaders(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(id, timestampSeconds, body, secrets),
    'content-type': 'application/json',
  };
}
