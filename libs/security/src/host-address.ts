import { isIPv4, isIPv6 } from 'node:net';

const DOTTED_QUAD = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * An ACL host or a client address written one way, so that comparing strings compares addresses:
 * IPv6 compressed and lower-case as RFC 5952 writes it (`0:0:0:0:0:0:0:1` and `::0001` are `::1`),
 * an IPv4-mapped IPv6 address as its IPv4 address (`::ffff:127.0.0.1` is `127.0.0.1`, what a
 * dual-stack listener reports for an IPv4 client), brackets taken off. `*` and anything that is not
 * an address are returned as they are.
 */
export function canonicalHost(host: string): string {
  if (DOTTED_QUAD.test(host) || host === '*') return host;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return host;
  let compressed: string;
  try {
    compressed = new URL(`http://[${bare}]`).hostname.slice(1, -1);
  } catch {
    return bare.toLowerCase(); // a zone id (fe80::1%eth0), which URL does not take
  }
  const mapped = MAPPED.exec(compressed);
  if (!mapped) return compressed;
  const high = parseInt(mapped[1], 16);
  const low = parseInt(mapped[2], 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
