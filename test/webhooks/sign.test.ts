import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signatureHeader, webhookHeaders } from '../../src/webhooks/sign.js';

const body = JSON.stringify({ messageID: 42, status: 'delivered', body: 'héllo ✓' });
const now = () => Math.floor(Date.now() / 1000);

describe('generateWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});

describe('signatureHeader', () => {
  it('is v1,<base64 HMAC-SHA256 of id.timestamp.body> keyed by the decoded secret', () => {
    const secret = generateWebhookSecret();
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`msg_1.1700000000.${body}`).digest('base64');
    expect(signatureHeader('msg_1', 1_700_000_000, body, [secret])).toBe(`v1,${expected}`);
  });

  it('signs with every secret, space-separated', () => {
    const header = signatureHeader('msg_1', now(), body, [generateWebhookSecret(), generateWebhookSecret()]);
    expect(header.split(' ')).toHaveLength(2);
    for (const part of header.split(' ')) expect(part).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('refuses to sign without a secret or with a fractional timestamp', () => {
    expect(() => signatureHeader('msg_1', now(), body, [])).toThrow();
    expect(() => signatureHeader('msg_1', 1.5, body, [generateWebhookSecret()])).toThrow();
  });
});

describe('webhookHeaders, verified by the standardwebhooks library', () => {
  it('verifies with the secret that signed it', () => {
    const secret = generateWebhookSecret();
    const headers = webhookHeaders('msg_2', now(), body, [secret]);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toBe('msg_2');
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('verifies with either secret during a rotation', () => {
    const [fresh, old] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = webhookHeaders('msg_3', now(), body, [fresh, old]);
    expect(() => new Webhook(fresh).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(old).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('fails on a tampered body, id or timestamp', () => {
    const secret = generateWebhookSecret();
    const ts = now();
    const headers = webhookHeaders('msg_4', ts, body, [secret]);
    const verifier = new Webhook(secret);
    expect(() => verifier.verify(body.replace('42', '43'), headers)).toThrow();
    expect(() => verifier.verify(body, { ...headers, 'webhook-id': 'msg_5' })).toThrow();
    expect(() => verifier.verify(body, { ...headers, 'webhook-timestamp': String(ts - 1) })).toThrow();
  });
});
