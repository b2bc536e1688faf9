/**
 * Where a peer's transport listens, from the `endpoint` of its registration: `tcp://host:port`
 * (or plain `host:port`; IPv6 hosts in brackets).
 */
export interface PeerEndpoint {
  host: string;
  port: number;
}

export function parsePeerEndpoint(endpoint: string): PeerEndpoint {
  let url: URL;
  try {
    url = new URL(endpoint.includes('://') ? endpoint : `tcp://${endpoint}`);
  } catch {
    throw new Error(`not a transport endpoint: ${JSON.stringify(endpoint)} (expected tcp://host:port)`);
  }
  const port = Number(url.port);
  if (url.hostname === '' || !Number.isInteger(port) || port <= 0 || port > 65_535) {
    throw new Error(`not a transport endpoint: ${JSON.stringify(endpoint)} (expected tcp://host:port)`);
  }
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

export function formatPeerEndpoint(host: string, port: number): string {
  return `tcp://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
