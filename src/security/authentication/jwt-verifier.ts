import { errors, jwtVerify } from 'jose';
import { FileChangePoller } from './file-change-poller';
import { type JwtKey, type JwtKeySetting, loadJwtKey } from './jwt-key-source';

export interface JwtVerifierOptions {
  keys: JwtKeySetting;
  issuer?: string;
  /** Any of these must be in the token's `aud`. */
  audience?: string[];
  /** Milliseconds since the epoch; injected so tests can pin it. */
  now?: () => number;
  onKeysReloadFailed?: (error: Error) => void;
}

/** What a valid token says: the principal and when the token stops being valid. */
export interface VerifiedJwt {
  principal: string;
  expiresAtMs: number;
}

/** A token that does not verify, with the reason for the server's log and audit line (never sent to the client). */
export class JwtRejected extends Error {
  override readonly name = 'JwtRejected';
}

/**
 * Leeway for `nbf` and `iat` only, Kafka's `sasl.oauthbearer.clock.skew.seconds` default: a token minted
 * on a machine whose clock runs a little ahead must still work. `exp` is held exactly, because the
 * socket of a token is closed at `exp` and a token must not outlive the time it says.
 */
const CLOCK_SKEW_SECONDS = 30;

/**
 * Verifies JWTs with jose (OAUTHBEARER's checks, Kafka's ValidatorAccessTokenValidator): signature with
 * the configured key and only its algorithm, `exp` required and enforced, `nbf` and `iat` with 30 s of
 * skew (a token issued later than that is refused), `iss` and `aud` when
 * configured, `sub` required (the principal is `User:<sub>`). A JWKS file is polled and re-read on
 * change, so keys can be rotated without a restart.
 */
export class JwtVerifier {
  private key: JwtKey;
  private readonly now: () => number;
  private readonly poller: FileChangePoller | null = null;

  constructor(private readonly options: JwtVerifierOptions) {
    const keys = options.keys;
    if (keys.kind === 'jwks') {
      this.poller = new FileChangePoller(keys.path, 1_000, () => {
        try {
          this.key = loadJwtKey(keys);
        } catch (error) {
          options.onKeysReloadFailed?.(error as Error);
        }
      });
      this.poller.start();
    }
    this.key = loadJwtKey(keys);
    this.now = options.now ?? Date.now;
  }

  async verify(token: string): Promise<VerifiedJwt> {
    const nowMs = this.now();
    let payload: { sub?: unknown; exp?: unknown; iat?: unknown };
    try {
      ({ payload } = await jwtVerify(token, this.key.key as Parameters<typeof jwtVerify>[1], {
        algorithms: this.key.algorithms,
        issuer: this.options.issuer,
        audience: this.options.audience,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_SKEW_SECONDS,
        currentDate: new Date(nowMs),
      }));
    } catch (error) {
      throw new JwtRejected(describe(error));
    }
    const expiresAtMs = (payload.exp as number) * 1000;
    if (!(expiresAtMs > nowMs)) throw new JwtRejected('"exp" claim timestamp check failed (expired)');
    // jose checks that iat is a number but not when it lies ahead; a token issued in the future was
    // minted by a clock that is wrong by more than the skew Kafka allows, or forged to live longer.
    if (typeof payload.iat === 'number' && payload.iat * 1000 > nowMs + CLOCK_SKEW_SECONDS * 1000)
      throw new JwtRejected(
        `"iat" claim timestamp check failed (issued more than ${CLOCK_SKEW_SECONDS} s in the future)`,
      );
    if (typeof payload.sub !== 'string' || payload.sub === '' || /[\s;]/.test(payload.sub))
      throw new JwtRejected('"sub" must be a non-empty name without spaces or ";"');
    return { principal: `User:${payload.sub}`, expiresAtMs };
  }

  close(): void {
    this.poller?.stop();
  }
}

function describe(error: unknown): string {
  if (error instanceof errors.JOSEError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
