/**
 * SSRF guard for callback URLs. Callback URLs are chosen by API clients, so without this a
 * client could make the gateway POST into its own network (metadata services, admin ports).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Ranges that are not publicly routable, as data. Documentation and benchmarking nets are
 * included because nothing legitimate lives there and they are sometimes routed internally.
 */
const BLOCKED_RANGES = [
  ['0.0.0.0', 8, 'ipv4'], // "this network", incl. 0.0.0.0 which Linux routes to localhost
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // CGNAT
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'], // link-local, incl. cloud metadata 169.254.169.254
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // TEST-NET-1
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // TEST-NET-2
  ['203.0.113.0', 24, 'ipv4'], // TEST-NET-3
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, incl. broadcast 255.255.255.255
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'],
  ['::', 96, 'ipv6'], // deprecated IPv4-compatible
  ['64:ff9b::', 96, 'ipv6'], // NAT64: blocked whole rather than trusting the embedded IPv4
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
  ['100::', 64, 'ipv6'], // discard-only
  ['2001::', 32, 'ipv6'], // Teredo: tunnels to arbitrary IPv4
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['2002::', 16, 'ipv6'], // 6to4: tunnels to arbitrary IPv4
  ['fc00::', 7, 'ipv6'], // unique-local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // deprecated site-local
  ['ff00::', 8, 'ipv6'], // multicast
] as const satisfies readonly (readonly [string, number, 'ipv4' | 'ipv6'])[];

const blocked = new BlockList();
for (const [network, prefix, family] of BLOCKED_RANGES) blocked.addSubnet(network, prefix, family);

/**
 * True for any address we must not connect to. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged
 * by its IPv4 part (BlockList matches IPv4 rules against mapped addresses). Anything that is not
 * an IP literal counts as private: failing closed is the only safe answer to a malformed input.
 */
export function isPrivateAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return true;
  return blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

export const MAX_CALLBACK_URL_LENGTH = 2048;

export type CallbackUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Syntactic checks done when a callback URL is stored and again before each attempt. Where the
 * host points is not judged here: DNS can change between now and the POST, so that check
 * belongs to the connection (http1/pool.ts).
 */
export function checkCallbackUrl(url: string): CallbackUrlCheck {
  if (url.length > MAX_CALLBACK_URL_LENGTH) {
    return { ok: false, reason: `longer than ${MAX_CALLBACK_URL_LENGTH} characters` };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, reason: 'scheme must be http or https' };
  }
  if (parsed.hostname === '') return { ok: false, reason: 'host is missing' };
  // Credentials in a callback URL would be stored and logged in clear with every attempt.
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'credentials in the URL are not allowed' };
  }
  return { ok: true, url: parsed };
}

export const PRIVATE_ADDRESS_CODE = 'SMSGW_PRIVATE_ADDRESS';

export class PrivateAddressError extends Error {
  readonly code = PRIVATE_ADDRESS_CODE;
  readonly host: string;
  readonly address: string | undefined;
  constructor(host: string, address: string | undefined) {
    super(`refusing to connect to ${host}: ${address ?? 'unknown address'} is not a public address`);
    this.name = 'PrivateAddressError';
    this.host = host;
    this.address = address;
  }
}

/**
 * A DNS lookup that drops private addresses, for net.connect/tls.connect. They connect to
 * exactly the addresses the `lookup` they are given returns (with autoSelectFamily, only
 * those), so no second resolution can slip a different answer in between; the connected
 * address is checked again before a byte is written (http1/pool.ts).
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const allowed = addresses.filter((a) => !isPrivateAddress(a.address));
    const first = allowed[0];
    if (first === undefined) return callback(new PrivateAddressError(hostname, addresses[0]?.address), []);
    if (options.all === true) return callback(null, allowed);
    return callback(null, first.address, first.family);
  });
}
type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;
