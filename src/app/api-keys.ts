import { hash, randomBytes } from 'node:crypto';

/** A new API key: 256 random bits, prefixed so a leaked key is recognisable in logs and scans. */
export function generateApiKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/**
 * Keys are stored only as SHA-256. A key carries 256 bits of entropy, so a slow password hash
 * would add nothing; looking the hash up by index means no stored secret is ever compared with
 * attacker input, which is what the constant-time rule protects against.
 */
export function hashApiKey(key: string): string {
  // The one-shot hash() builds no Hash object: a third of createHash()'s cost, paid per request.
  return hash('sha256', key, 'hex');
}

/** First characters of a key, stored so a person can tell keys apart. */
export function keyPrefix(key: string): string {
  return key.slice(0, 10);
}

/** `Bearer <key>` or the bare key (decisions §2); null when the header carries nothing usable. */
export function keyFromAuthorization(header: string | undefined): string | null {
  if (header === undefined) return null;
  const value = header.trim();
  const match = /^bearer\s+(.+)$/i.exec(value);
  const key = (match ? match[1]! : value).trim();
  return key === '' || /\s/.test(key) ? null : key;
}
