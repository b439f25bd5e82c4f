import { describe, expect, it } from 'vitest';
import { checkCallbackUrl, isPrivateAddress } from '../../src/webhooks/address-guard.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.1.2.3',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2001:db8::1',
  ])('%s is private', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '169.253.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::1',
    '::ffff:8.8.8.8',
  ])('%s is public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });

  it('treats anything that is not an IP literal as private', () => {
    for (const notIp of ['', 'localhost', 'example.com', '256.0.0.1', '1.2.3', '[::1]']) {
      expect(isPrivateAddress(notIp)).toBe(true);
    }
  });
});

describe('checkCallbackUrl', () => {
  it('accepts http and https URLs with a host', () => {
    const r = checkCallbackUrl('https://hooks.example.com:8443/sms?token=abc');
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.url.hostname).toBe('hooks.example.com');
    expect(checkCallbackUrl('http://[2606:4700::1]/x').ok).toBe(true);
  });

  it.each([
    ['not a url', 'not a valid URL'],
    ['ftp://example.com/x', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['javascript:alert(1)', 'scheme'],
    ['https://user:pw@example.com/', 'credentials'],
    ['https://user@example.com/', 'credentials'],
    [`https://example.com/${'a'.repeat(2048)}`, 'longer than 2048'],
  ])('refuses %s', (url, reason) => {
    const r = checkCallbackUrl(url);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(reason);
  });

  it('accepts exactly 2048 characters', () => {
    const base = 'https://example.com/';
    expect(checkCallbackUrl(base + 'a'.repeat(2048 - base.length)).ok).toBe(true);
  });
});
