/**
 * Who a connection or request authenticated as, and what keeps it valid: a static token's digest
 * (re-checked when AUTH_TOKENS_FILE changes), a JWT's expiry (its socket is closed then) or a client
 * certificate (valid for the life of the TLS connection).
 */
export type Credential =
  | { kind: 'anonymous'; principal: string }
  | { kind: 'static-token'; principal: string; tokenSha256: Buffer }
  | { kind: 'jwt'; principal: string; expiresAtMs: number }
  | { kind: 'certificate'; principal: string };

/** What a client presented: the bearer token (handshake `auth.token` or `Authorization: Bearer`) and the TLS client certificate's CN. */
export interface Presented {
  token?: unknown;
  certificateCn?: string | null;
}

/**
 * A refused credential. `reason` is for the log and the audit line only: the client is told no more
 * than SASL_AUTHENTICATION_FAILED (Kafka answers "invalid credentials" without saying which part was
 * wrong, so that a prober learns nothing about which principals exist).
 */
export class AuthenticationFailed extends Error {
  override readonly name = 'AuthenticationFailed';

  constructor(
    readonly reason: string,
    readonly credentialKind: string,
  ) {
    super(reason);
  }
}

/** The message clients see for every refused credential. */
export const AUTHENTICATION_FAILED_MESSAGE = 'Authentication failed: invalid or expired credentials';
