import { isIP } from 'node:net';

/**
 * The host name a `Host` header names, lower-cased, without its port and without a final dot
 * (`Attacker.Example.:8080` → `attacker.example`, `[::1]:3000` → `[::1]`); null when it is not a
 * host (credentials, a path, characters no host has).
 */
export function hostNameOf(header: string): string | null {
  let url: URL;
  try {
    url = new URL(`http://${header.trim()}`);
  } catch {
    return null;
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return null;
  return url.hostname.replace(/\.$/, '');
}

/** True for an IPv4 or IPv6 literal as URL writes it (`127.0.0.1`, `[::1]`): a name no DNS answer can rebind. */
export function isIpLiteral(hostName: string): boolean {
  const bare = hostName.startsWith('[') && hostName.endsWith(']') ? hostName.slice(1, -1) : hostName;
  return isIP(bare) !== 0;
}

/** ALLOWED_HOSTS: comma-separated host names (no scheme, no port); throws naming the first that is not one. */
export function parseAllowedHosts(list: string): string[] {
  const hosts: string[] = [];
  for (const entry of list
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const name = /[:/@?#]/.test(entry) && !entry.startsWith('[') ? null : hostNameOf(entry);
    if (name === null || name === '')
      throw new Error(`"${entry}" is not a host name (a name such as cohort.internal, no scheme or port)`);
    hosts.push(name);
  }
  return hosts;
}
