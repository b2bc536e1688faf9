import { Expose } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { EnvBoolean, EnvInt, EnvTrimmed } from './env-transforms';

/**
 * The security variables (docs/security.md), kept apart from the rest of the environment so that the
 * schema of each stays readable; EnvironmentVariables extends this class. Files named here are read
 * and checked at start by src/security/security-problems.ts, so a missing key or a malformed tokens file stops the
 * process with the variable named, as any other bad value does.
 */
export class SecurityVariables {
  /** JSON `{ "principals": [{ "name": "User:billing", "tokenSha256": "<hex>" }] }`; re-read when it changes. */
  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @IsString()
  @MinLength(1)
  AUTH_TOKENS_FILE?: string;

  /** HS256 shared secret; at least 32 bytes (RFC 7518 §3.2: a key as long as the hash). */
  @Expose()
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'AUTH_JWT_SECRET must be at least 32 characters (HS256 needs a 256-bit key)' })
  AUTH_JWT_SECRET?: string;

  /** PEM public key (RSA → RS256, P-256 → ES256, Ed25519 → EdDSA). */
  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @IsString()
  @MinLength(1)
  AUTH_JWT_PUBLIC_KEY_FILE?: string;

  /** A JWKS document `{ "keys": [...] }` on disk; re-read when it changes (key rotation). */
  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @IsString()
  @MinLength(1)
  AUTH_JWT_JWKS_FILE?: string;

  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @IsString()
  @MinLength(1)
  AUTH_JWT_ISSUER?: string;

  /** One audience or a comma-separated list, any of which the token's `aud` must contain. */
  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @IsString()
  @MinLength(1)
  AUTH_JWT_AUDIENCE?: string;

  /** `User:admin;User:ops` (Kafka's `super.users`: `;` because certificate names contain commas). */
  @Expose()
  @IsString()
  SUPER_USERS: string = '';

  @Expose()
  @EnvBoolean()
  @IsBoolean()
  ALLOW_EVERYONE_IF_NO_ACL_FOUND: boolean = false;

  @Expose()
  @EnvBoolean()
  @IsBoolean()
  PROTECTED_MODE: boolean = true;

  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @IsString()
  @MinLength(1)
  TLS_CERT_FILE?: string;

  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @IsString()
  @MinLength(1)
  TLS_KEY_FILE?: string;

  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @IsString()
  @MinLength(1)
  TLS_CA_FILE?: string;

  /** Kafka's `ssl.client.auth` without `requested`, which its docs call "a false sense of security". */
  @Expose()
  @EnvTrimmed()
  @IsIn(['none', 'required'])
  TLS_CLIENT_AUTH: 'none' | 'required' = 'none';

  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @IsString()
  @MinLength(1)
  CLUSTER_SECRET_FILE?: string;

  /** Per client address; 0 turns the limit off. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(100_000_000)
  RATE_LIMIT_REST_PER_MINUTE: number = 6_000;

  /** Per connection; 0 turns the limit off. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  RATE_LIMIT_SOCKET_EVENTS_PER_SECOND: number = 1_000;

  /** Open socket.io connections per client address; 0 turns the limit off. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  MAX_CONNECTIONS_PER_IP: number = 1_000;

  /**
   * Open socket.io connections on this node, from every address; 0 turns the limit off. Unset: 100,000,
   * or fewer where the process may open fewer files (see max-connections-default.ts).
   */
  @Expose()
  @IsOptional()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(100_000_000)
  MAX_CONNECTIONS?: number;

  /**
   * Groups one principal may create (JoinGroup or a commit that creates a group); a deleted or expired
   * group frees its slot. Unset: 1000 with authentication, off without (every client is then
   * User:ANONYMOUS, so a count would cap the node, not a principal); 0 = off.
   */
  @Expose()
  @IsOptional()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  MAX_GROUPS_PER_PRINCIPAL?: number;

  /** Topics one principal may create through `POST /v1/topics`. Unset: 100 with authentication, off without; 0 = off. */
  @Expose()
  @IsOptional()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  MAX_TOPICS_PER_PRINCIPAL?: number;

  /**
   * Comma-separated host names (`cohort.internal`) a protected-mode node answers in `Host` besides IP
   * addresses, localhost and its advertised host (DNS rebinding, docs/security.md).
   */
  @Expose()
  @IsString()
  ALLOWED_HOSTS: string = '';

  /** How long an engine.io session may stay without authenticating (socket.io's CONNECT admitted); 0 = no limit. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(600_000)
  SOCKET_AUTH_TIMEOUT_MS: number = 10_000;

  /**
   * Members and KIP-394 pending member ids one principal may hold on a node, across its groups; a
   * JoinGroup beyond it is answered 89. Unset: 10000 with authentication (one principal can fill a
   * group of GROUP_MAX_SIZE's default), off without; 0 = off.
   */
  @Expose()
  @IsOptional()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  MAX_MEMBERS_PER_PRINCIPAL?: number;

  /** Bytes of JoinGroup protocols (as JSON) one principal's members may hold on a node. Unset: 32 MiB with authentication, off without; 0 = off. */
  @Expose()
  @IsOptional()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL?: number;

  /** Denial lines of the audit log one principal may write per AUDIT_LOG_LIMIT_WINDOW_MS; 0 = no limit. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  AUDIT_LOG_LIMIT_LINES: number = 100;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  AUDIT_LOG_LIMIT_WINDOW_MS: number = 10_000;

  /** Comma-separated origins (`https://app.example.com`) allowed besides the node's own. */
  @Expose()
  @IsString()
  CORS_ORIGINS: string = '';
}
