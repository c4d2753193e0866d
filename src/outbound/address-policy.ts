// Which addresses Carta may connect to on a client's behalf (remote image URLs, later webhooks):
// public unicast only. The ranges come from ipaddr.js, not from a table of our own; this file only
// decides what to do with the forms that embed an IPv4 address (mapped, NAT64, 6to4), which are
// judged by the address they carry: any hop resolving to a loopback, private,
// link-local, CGNAT, multicast, reserved or metadata address is BLOCKED_SOURCE_URL.
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Cloud metadata endpoints on addresses the range checks would let through. The usual ones are
 * already blocked by range: 169.254.169.254 (AWS, GCP, Azure IMDS, DigitalOcean, Oracle) is
 * link-local, 100.100.100.200 (Alibaba) CGNAT, 192.0.0.192 (Oracle) reserved, fd00:ec2::254 (AWS)
 * unique-local.
 */
const METADATA_ADDRESSES = new Set(['168.63.129.16' /* Azure WireServer */]);

const blocked = (reason: string): AddressVerdict => ({ allowed: false, reason });

function classifyV4(ip: ipaddr.IPv4, form = ''): AddressVerdict {
  const range = ip.range();
  const label = form ? `${form} of ${ip.toString()}` : ip.toString();
  if (range !== 'unicast') return blocked(`${label} is ${range}`);
  if (METADATA_ADDRESSES.has(ip.toString())) return blocked(`${label} is a cloud metadata address`);
  return { allowed: true };
}

function embeddedV4(bytes: number[], offset: number): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(offset, offset + 4));
}

function classifyV6(ip: ipaddr.IPv6): AddressVerdict {
  if (ip.isIPv4MappedAddress()) return classifyV4(ip.toIPv4Address(), 'IPv4-mapped form');
  const bytes = ip.toByteArray();
  const range = ip.range();
  // ::/96 (IPv4-compatible, deprecated) also holds :: and ::1; nothing legitimate lives there.
  if (bytes.slice(0, 12).every((b) => b === 0)) return blocked(`${ip.toString()} is ${range === 'unicast' ? 'IPv4-compatible' : range}`);
  if (range === 'rfc6052') {
    // 64:ff9b::/96 translates to the IPv4 address in its last 32 bits; the local-use 64:ff9b:1::/48
    // translates to whatever the network says, so it is refused outright.
    const wellKnown = bytes.slice(0, 12).join(',') === [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0].join(',');
    return wellKnown ? classifyV4(embeddedV4(bytes, 12), 'NAT64 form') : blocked(`${ip.toString()} is a local-use NAT64 address`);
  }
  if (range === '6to4') return classifyV4(embeddedV4(bytes, 2), '6to4 form');
  if (range !== 'unicast') return blocked(`${ip.toString()} is ${range}`);
  // Global unicast is 2000::/3; anything else ipaddr.js calls unicast is unassigned space.
  if ((bytes[0] & 0xe0) !== 0x20) return blocked(`${ip.toString()} is outside global unicast`);
  return { allowed: true };
}

/** The verdict on one address as the socket would dial it (an IP literal, never a name). */
export function classifyAddress(address: string): AddressVerdict {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Only the strict forms are addresses here: a name, a short or numeric IPv4 form ('127.1') or a
  // zone id (fe80::1%eth0) is not something a socket is handed after resolution.
  if (net.isIP(bare) === 0 || bare.includes('%')) return blocked(`'${address}' is not an IP address`);
  const ip = ipaddr.parse(bare);
  return ip.kind() === 'ipv4' ? classifyV4(ip as ipaddr.IPv4) : classifyV6(ip as ipaddr.IPv6);
}

/**
 * RFC 6761: `localhost` and every name under it mean loopback, whatever a resolver would answer
 * (a system resolver may not know `localhost.` at all, and a DNS server may answer anything).
 * Any case, with or without the root's trailing dot.
 */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The address a URL's host names by its text alone, without asking a resolver: an IP literal
 * (brackets removed), or loopback for a localhost name; null for a name only DNS can answer.
 * Media fetches and webhook URLs both decide by it, at registration and at every connection.
 */
export function addressOfHost(host: string): string | null {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (net.isIP(bare) !== 0) return bare;
  return isLocalhostName(bare) ? '127.0.0.1' : null;
}

/** true for the loopback forms a test allowlist may name (127.0.0.0/8, ::1, IPv4-mapped loopback). */
export function isLoopback(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  return net.isIP(bare) !== 0 && ipaddr.process(bare).range() === 'loopback';
}

/** An IP address in its canonical text (IPv4-mapped IPv6 as IPv4), for comparing endpoints. */
export function canonicalAddress(address: string): string {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  return net.isIP(bare) !== 0 ? ipaddr.process(bare).toString() : bare.toLowerCase();
}
