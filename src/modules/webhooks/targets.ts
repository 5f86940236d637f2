import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/*
 * Where webhooks may go. Every address a target resolves to is checked against the special-use
 * ranges below before every attempt (no caching), and the connection is then pinned to a checked
 * address. IP literals arrive normalised by the WHATWG URL parser (127.1, 0x7f000001 and
 * 2130706433 all become 127.0.0.1), then go through the same check.
 */

/** IPv4 ranges that are never targets, with their sources (IANA IPv4 Special-Purpose Registry). */
export const BLOCKED_IPV4: ReadonlyArray<readonly [string, string]> = [
  ['0.0.0.0/8', 'RFC 791: this network'],
  ['10.0.0.0/8', 'RFC 1918: private'],
  ['100.64.0.0/10', 'RFC 6598: shared address space (CGNAT)'],
  ['127.0.0.0/8', 'RFC 1122: loopback'],
  ['169.254.0.0/16', 'RFC 3927: link-local'],
  ['172.16.0.0/12', 'RFC 1918: private'],
  ['192.0.0.0/24', 'RFC 6890: IETF protocol assignments'],
  ['192.0.2.0/24', 'RFC 5737: documentation (TEST-NET-1)'],
  ['192.31.196.0/24', 'RFC 7535: AS112-v4'],
  ['192.52.193.0/24', 'RFC 7450: AMT'],
  ['192.88.99.0/24', 'RFC 7526: deprecated 6to4 relay anycast'],
  ['192.168.0.0/16', 'RFC 1918: private'],
  ['192.175.48.0/24', 'RFC 7534: direct delegation AS112 service'],
  ['198.18.0.0/15', 'RFC 2544: benchmarking'],
  ['198.51.100.0/24', 'RFC 5737: documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'RFC 5737: documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'RFC 5771: multicast'],
  ['240.0.0.0/4', 'RFC 1112: reserved'],
  ['255.255.255.255/32', 'RFC 919: limited broadcast'],
];

/**
 * IPv6: only global unicast (2000::/3, RFC 4291) may be a target; everything outside it is
 * refused, whatever it is (loopback, IPv4-translated ::ffff:0:0/96, unallocated 1::, 100::/8 …).
 * Inside 2000::/3 these special-purpose ranges are refused too (IANA IPv6 Special-Purpose
 * Registry); the ranges outside it stay listed to name the reason in the refusal.
 */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** IPv6 ranges that are never targets (IANA IPv6 Special-Purpose Registry). */
export const BLOCKED_IPV6: ReadonlyArray<readonly [string, string]> = [
  ['::/128', 'RFC 4291: unspecified'],
  ['::1/128', 'RFC 4291: loopback'],
  ['::/96', 'RFC 4291: deprecated IPv4-compatible'],
  ['64:ff9b::/96', 'RFC 6052: NAT64 well-known prefix (embeds IPv4)'],
  ['64:ff9b:1::/48', 'RFC 8215: local-use NAT64'],
  ['100::/64', 'RFC 6666: discard-only'],
  ['2001::/23', 'RFC 2928: IETF protocol assignments (includes Teredo 2001::/32)'],
  ['2001:db8::/32', 'RFC 3849: documentation'],
  ['2002::/16', 'RFC 3056: 6to4 (embeds IPv4)'],
  ['2620:4f:8000::/48', 'RFC 7534: direct delegation AS112 service'],
  ['3fff::/20', 'RFC 9637: documentation'],
  ['5f00::/16', 'RFC 9602: SRv6 SIDs'],
  ['fc00::/7', 'RFC 4193: unique local'],
  ['fe80::/10', 'RFC 4291: link-local'],
  ['fec0::/10', 'RFC 3879: deprecated site-local'],
  ['ff00::/8', 'RFC 4291: multicast'],
];

const v4 = BLOCKED_IPV4.map(([cidr, source]) => ({ range: ipaddr.IPv4.parseCIDR(cidr), cidr, source }));
const v6 = BLOCKED_IPV6.map(([cidr, source]) => ({ range: ipaddr.IPv6.parseCIDR(cidr), cidr, source }));

/** The blocked range an address falls in (IPv4-mapped IPv6 is checked as its IPv4), or null. */
export function blockedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') {
    const hit = v4.find(({ range }) => (parsed as ipaddr.IPv4).match(range as [ipaddr.IPv4, number]));
    return hit ? `${hit.cidr} (${hit.source})` : null;
  }
  const hit = v6.find(({ range }) => (parsed as ipaddr.IPv6).match(range as [ipaddr.IPv6, number]));
  if (hit) return `${hit.cidr} (${hit.source})`;
  return (parsed as ipaddr.IPv6).match(GLOBAL_UNICAST) ? null : 'outside 2000::/3 (RFC 4291: only global unicast is a target)';
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to every address it has (no cache); tests inject their own. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export class TargetRefused extends Error {
  override name = 'TargetRefused';
  constructor(
    readonly code: 'invalid_url' | 'scheme_not_allowed' | 'blocked_address' | 'unresolvable' | 'timeout',
    message: string,
  ) {
    super(message);
  }
}

/** The URL rules that need no lookup: absolute, https (or http when private targets are allowed), no credentials. */
export function checkUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('invalid_url', `${JSON.stringify(raw)} is not an absolute URL.`);
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new TargetRefused(
      'scheme_not_allowed',
      `Webhook URLs must use https${allowPrivate ? ' or http' : ''} (got ${url.protocol.replace(':', '')}).`,
    );
  }
  if (url.username || url.password) throw new TargetRefused('invalid_url', 'Webhook URLs must not carry credentials.');
  return url;
}

/**
 * Checks a target and returns the address to connect to. Every address the name resolves to
 * must be allowed: one private address among public ones refuses the target.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean, resolve: Resolver, timeoutMs?: number): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: ipaddr.parse(host).toString(), family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }];
  } else {
    try {
      addresses = timeoutMs === undefined ? await resolve(host) : await withinTime(resolve(host), timeoutMs, host);
    } catch (error) {
      if (error instanceof TargetRefused) throw error;
      throw new TargetRefused('unresolvable', `${host} does not resolve (${(error as Error).message}).`);
    }
    if (addresses.length === 0) throw new TargetRefused('unresolvable', `${host} does not resolve.`);
  }
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const range = blockedRange(address);
      if (range) throw new TargetRefused('blocked_address', `${host} resolves to ${address}, a private or special-use address (${range}).`);
    }
  }
  return addresses[0] as ResolvedAddress;
}

/** The lookup, or a `timeout` refusal when it takes longer than the attempt has left. */
async function withinTime<T>(lookup: Promise<T>, timeoutMs: number, host: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TargetRefused('timeout', `${host} did not resolve within ${timeoutMs} ms.`)), timeoutMs);
  });
  try {
    return await Promise.race([lookup, late]);
  } finally {
    clearTimeout(timer);
  }
}
