import { readFileSync } from 'node:fs';
import type { SecurityConfig } from '../../config/security-config';

/**
 * Node's `https.createServer` options for TLS_CERT_FILE / TLS_KEY_FILE / TLS_CA_FILE, or undefined for
 * plain HTTP. With TLS_CLIENT_AUTH=required, a client must present a certificate that TLS_CA_FILE
 * signed or the TLS handshake fails; its CN is then the principal. Socket.io shares the server, so
 * WSS comes with HTTPS.
 */
export function httpsOptionsOf(
  security: SecurityConfig,
): { cert: Buffer; key: Buffer; ca?: Buffer; requestCert: boolean; rejectUnauthorized: boolean } | undefined {
  if (!security.tls) return undefined;
  const required = security.tlsClientAuth === 'required';
  return {
    cert: readFileSync(security.tls.certFile),
    key: readFileSync(security.tls.keyFile),
    ...(security.tls.caFile ? { ca: readFileSync(security.tls.caFile) } : {}),
    requestCert: required,
    rejectUnauthorized: required,
  };
}
