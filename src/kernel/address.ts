import ipaddr from 'ipaddr.js';

/**
 * The key a per-address budget counts a client under: an IPv4 address as it is (an IPv4-mapped
 * IPv6 address as its IPv4), an IPv6 address by its /64 (one subscriber usually holds a whole
 * /64, so keying by the full address would give them 2^64 budgets). Anything else as it is.
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const prefix = v6.parts.slice(0, 4).concat([0, 0, 0, 0]);
  return `${new ipaddr.IPv6(prefix).toString()}/64`;
}
