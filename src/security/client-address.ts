import { isIPv4 } from 'node:net';

/**
 * Whether a peer address is this machine's loopback: all of 127.0.0.0/8, ::1 and IPv4-mapped
 * ::ffff:127.x (what a dual-stack listener reports for an IPv4 loopback client). Anything else,
 * including an empty or unknown address, is not.
 */
export function isLoopback(address: string | undefined | null): boolean {
  if (!address) return false;
  const lower = address.toLowerCase();
  if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
  const v4 = lower.startsWith('::ffff:') ? lower.slice(7) : lower;
  return isIPv4(v4) && v4.startsWith('127.');
}
