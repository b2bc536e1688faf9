import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { CohortConfig } from '../../config/cohort-config';
import { ANONYMOUS_PRINCIPAL } from '../principal';
import { AuthenticationFailed, type Credential, type Presented } from './credential';
import { JwtRejected, JwtVerifier } from './jwt-verifier';
import { StaticTokenStore } from './static-token-store';
import { sha256 } from './tokens-file';

/** Longest bearer token looked at; anything longer is refused without parsing or hashing it. */
const MAX_TOKEN_LENGTH = 16_384;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Turns what a client presents into a Credential, for both transports: a static token of
 * AUTH_TOKENS_FILE, else a JWT (AUTH_JWT_*), else the TLS client certificate when TLS_CLIENT_AUTH is
 * `required` (a token, when given, decides: it is the more specific claim, as SASL over TLS is in Kafka).
 * With no authentication configured everyone is User:ANONYMOUS (protected mode guards that default).
 */
@Injectable()
export class Authenticator implements OnModuleDestroy {
  private readonly logger = new Logger('Authentication');
  readonly tokens: StaticTokenStore | null;
  private readonly jwt: JwtVerifier | null;
  private readonly certificates: boolean;
  private readonly changeListeners = new Set<() => void>();

  constructor(config: CohortConfig) {
    const security = config.security;
    this.tokens = security.tokensFile
      ? new StaticTokenStore(security.tokensFile, {
          onReloaded: (count) => {
            this.logger.log(`AUTH_TOKENS_FILE re-read: ${count} principal(s)`);
            for (const listener of this.changeListeners) listener();
          },
          onReloadFailed: (error) =>
            this.logger.error(
              `AUTH_TOKENS_FILE changed but cannot be used (the previous tokens stay in force): ${error.message}`,
            ),
        })
      : null;
    this.tokens?.watch();
    this.jwt = security.jwtKeys
      ? new JwtVerifier({
          keys: security.jwtKeys,
          issuer: security.jwtIssuer ?? undefined,
          audience: security.jwtAudience ?? undefined,
          onKeysReloadFailed: (error) =>
            this.logger.error(
              `AUTH_JWT_JWKS_FILE changed but cannot be used (the previous keys stay in force): ${error.message}`,
            ),
        })
      : null;
    this.certificates = security.tlsClientAuth === 'required';
  }

  get enabled(): boolean {
    return this.tokens !== null || this.jwt !== null || this.certificates;
  }

  /** Resolves with the credential, or rejects with AuthenticationFailed. */
  async authenticate(presented: Presented): Promise<Credential> {
    if (!this.enabled) return { kind: 'anonymous', principal: ANONYMOUS_PRINCIPAL };
    const { token } = presented;
    if (token !== undefined && token !== null && token !== '') return this.authenticateToken(token);
    if (this.certificates && presented.certificateCn)
      return { kind: 'certificate', principal: `User:${presented.certificateCn}` };
    throw new AuthenticationFailed('no credentials presented', 'none');
  }

  /** Whether a credential accepted earlier is still good now (a static token may have been revoked since). */
  stillValid(credential: Credential): boolean {
    if (credential.kind !== 'static-token') return true;
    return this.tokens?.principalOfDigest(credential.tokenSha256) === credential.principal;
  }

  /** Called after AUTH_TOKENS_FILE was re-read; returns the function that stops listening. */
  onCredentialsChanged(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  onModuleDestroy(): void {
    this.tokens?.close();
    this.jwt?.close();
    this.changeListeners.clear();
  }

  private async authenticateToken(token: unknown): Promise<Credential> {
    if (typeof token !== 'string')
      throw new AuthenticationFailed(
        `the token is a ${Array.isArray(token) ? 'array' : typeof token}, not a string`,
        'token',
      );
    if (token.length > MAX_TOKEN_LENGTH)
      throw new AuthenticationFailed(`a token of ${token.length} characters (at most ${MAX_TOKEN_LENGTH})`, 'token');
    if (this.tokens) {
      const digest = sha256(token);
      const principal = this.tokens.principalOfDigest(digest);
      if (principal !== null) return { kind: 'static-token', principal, tokenSha256: digest };
    }
    if (this.jwt && JWT_SHAPE.test(token)) {
      try {
        const verified = await this.jwt.verify(token);
        return { kind: 'jwt', principal: verified.principal, expiresAtMs: verified.expiresAtMs };
      } catch (error) {
        if (error instanceof JwtRejected) throw new AuthenticationFailed(`JWT rejected: ${error.message}`, 'jwt');
        throw error;
      }
    }
    throw new AuthenticationFailed(this.tokens ? 'unknown token' : 'not a JWT', 'token');
  }
}
