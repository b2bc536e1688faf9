/**
 * What a node registers as its `endpoint` in cluster mode: where peers reach its replication transport,
 * with the URL FindCoordinator gives clients riding along — one registration carries both, so a
 * node's advertised URL and its replication address can never disagree about which incarnation they
 * belong to.
 *
 *   tcp://<replication host>:<replication port>?advertised=<ADVERTISED_URL, URI-encoded>
 *
 * The transport reads only host and port (NetworkTransport ignores the query).
 */
export interface NodeEndpoint {
  replicationHost: string;
  replicationPort: number;
  advertisedUrl: string;
}

export function formatNodeEndpoint(e: NodeEndpoint): string {
  const host = e.replicationHost.includes(':') ? `[${e.replicationHost}]` : e.replicationHost;
  return `tcp://${host}:${e.replicationPort}?advertised=${encodeURIComponent(e.advertisedUrl)}`;
}

/** The advertised URL inside a registered endpoint, or null when it carries none (not a Cohort node). */
export function advertisedUrlOf(endpoint: string): string | null {
  try {
    return new URL(endpoint).searchParams.get('advertised');
  } catch {
    return null;
  }
}
