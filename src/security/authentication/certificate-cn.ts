import type { TLSSocket } from 'node:tls';

/**
 * The CN of the client certificate on a connection that TLS verified against TLS_CA_FILE, or null
 * (plain HTTP, no certificate, or one that did not verify). The principal is then `User:<CN>`.
 */
export function certificateCnOf(connection: unknown): string | null {
  const tls = connection as Partial<TLSSocket> | null | undefined;
  if (!tls?.authorized || typeof tls.getPeerCertificate !== 'function') return null;
  const cn = tls.getPeerCertificate()?.subject?.CN;
  return typeof cn === 'string' && cn !== '' ? cn : null;
}
