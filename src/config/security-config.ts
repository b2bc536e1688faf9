import { resolve } from 'node:path';
import { parseAllowedHosts } from '../common/hosts';
import { parseOrigins } from '../common/origins';
import { defaultMaxConnections, openFilesLimit } from './max-connections-default';
import type { SecurityVariables } from './security-variables';

/** With authentication on: far above what one service creates, low enough that one principal cannot fill the node's memory. */
export const DEFAULT_MAX_GROUPS_PER_PRINCIPAL = 1_000;
export const DEFAULT_MAX_TOPICS_PER_PRINCIPAL = 100;
/** As many members as GROUP_MAX_SIZE's default lets one group have, and 32 MiB of their protocols (3 KiB a member at that size). */
export const DEFAULT_MAX_MEMBERS_PER_PRINCIPAL = 10_000;
export const DEFAULT_MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL = 32 * 1024 * 1024;

/** Which JWT keys a node accepts, from exactly one of the three AUTH_JWT_* key variables. */
export type JwtKeySetting =
  { kind: 'secret'; secret: string } | { kind: 'public-key'; path: string } | { kind: 'jwks'; path: string };

/**
 * The security part of the configuration, typed and resolved (file paths absolute, lists split). The
 * files themselves are read by the services that use them (token store, JWT verifier, TLS options),
 * after src/security/security-problems.ts has checked them at start.
 */
export class SecurityConfig {
  readonly tokensFile: string | null;
  readonly jwtKeys: JwtKeySetting | null;
  readonly jwtIssuer: string | null;
  readonly jwtAudience: string[] | null;
  readonly superUsers: string[];
  readonly allowEveryoneIfNoAclFound: boolean;
  readonly protectedMode: boolean;
  readonly tls: { certFile: string; keyFile: string; caFile: string | null } | null;
  readonly tlsClientAuth: 'none' | 'required';
  readonly clusterSecretFile: string | null;
  /** 0 = no limit. */
  readonly restRequestsPerMinute: number;
  readonly socketEventsPerSecond: number;
  readonly maxConnectionsPerIp: number;
  /** Socket connections of the whole node (0 = no limit). */
  readonly maxConnections: number;
  /** Denial lines of the audit log per principal per window (0 = no limit), and the window. */
  readonly auditLogLimitLines: number;
  readonly auditLogLimitWindowMs: number;
  /** How long a socket session may stay unauthenticated; 0 = no limit. */
  readonly socketAuthTimeoutMs: number;
  /** What one principal may create (0 = no limit); the defaults depend on authentication, see SecurityVariables. */
  readonly maxGroupsPerPrincipal: number;
  readonly maxTopicsPerPrincipal: number;
  /** What one principal's members may hold on this node (0 = no limit); defaults as above. */
  readonly maxMembersPerPrincipal: number;
  readonly maxMemberMetadataBytesPerPrincipal: number;
  /** Normalized origins (`https://app.example.com`), besides the node's own. */
  readonly corsOrigins: string[];
  /** Lower-cased host names a protected-mode node answers besides IP addresses, localhost and its advertised host. */
  readonly allowedHosts: string[];

  constructor(env: SecurityVariables) {
    const path = (value: string | undefined) => (value ? resolve(value) : null);
    this.tokensFile = path(env.AUTH_TOKENS_FILE);
    this.jwtKeys = jwtKeysOf(env);
    this.jwtIssuer = env.AUTH_JWT_ISSUER ?? null;
    this.jwtAudience = env.AUTH_JWT_AUDIENCE ? splitList(env.AUTH_JWT_AUDIENCE, ',') : null;
    this.superUsers = splitList(env.SUPER_USERS, ';');
    this.allowEveryoneIfNoAclFound = env.ALLOW_EVERYONE_IF_NO_ACL_FOUND;
    this.protectedMode = env.PROTECTED_MODE;
    this.tls =
      env.TLS_CERT_FILE && env.TLS_KEY_FILE
        ? { certFile: resolve(env.TLS_CERT_FILE), keyFile: resolve(env.TLS_KEY_FILE), caFile: path(env.TLS_CA_FILE) }
        : null;
    this.tlsClientAuth = env.TLS_CLIENT_AUTH;
    this.clusterSecretFile = path(env.CLUSTER_SECRET_FILE);
    this.restRequestsPerMinute = env.RATE_LIMIT_REST_PER_MINUTE;
    this.socketEventsPerSecond = env.RATE_LIMIT_SOCKET_EVENTS_PER_SECOND;
    this.maxConnectionsPerIp = env.MAX_CONNECTIONS_PER_IP;
    this.maxConnections = env.MAX_CONNECTIONS ?? defaultMaxConnections(openFilesLimit());
    this.socketAuthTimeoutMs = env.SOCKET_AUTH_TIMEOUT_MS;
    this.auditLogLimitLines = env.AUDIT_LOG_LIMIT_LINES;
    this.auditLogLimitWindowMs = env.AUDIT_LOG_LIMIT_WINDOW_MS;
    this.corsOrigins = parseOrigins(env.CORS_ORIGINS);
    this.allowedHosts = parseAllowedHosts(env.ALLOWED_HOSTS);
    this.maxGroupsPerPrincipal =
      env.MAX_GROUPS_PER_PRINCIPAL ?? (this.authenticationEnabled ? DEFAULT_MAX_GROUPS_PER_PRINCIPAL : 0);
    this.maxTopicsPerPrincipal =
      env.MAX_TOPICS_PER_PRINCIPAL ?? (this.authenticationEnabled ? DEFAULT_MAX_TOPICS_PER_PRINCIPAL : 0);
    this.maxMembersPerPrincipal =
      env.MAX_MEMBERS_PER_PRINCIPAL ?? (this.authenticationEnabled ? DEFAULT_MAX_MEMBERS_PER_PRINCIPAL : 0);
    this.maxMemberMetadataBytesPerPrincipal =
      env.MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL ??
      (this.authenticationEnabled ? DEFAULT_MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL : 0);
  }

  /** A token, a JWT key or required client certificates: clients must prove who they are, and protected mode is off. */
  get authenticationEnabled(): boolean {
    return this.tokensFile !== null || this.jwtKeys !== null || this.tlsClientAuth === 'required';
  }
}

function jwtKeysOf(env: SecurityVariables): JwtKeySetting | null {
  if (env.AUTH_JWT_SECRET) return { kind: 'secret', secret: env.AUTH_JWT_SECRET };
  if (env.AUTH_JWT_PUBLIC_KEY_FILE) return { kind: 'public-key', path: resolve(env.AUTH_JWT_PUBLIC_KEY_FILE) };
  if (env.AUTH_JWT_JWKS_FILE) return { kind: 'jwks', path: resolve(env.AUTH_JWT_JWKS_FILE) };
  return null;
}

function splitList(value: string, separator: string): string[] {
  return value
    .split(separator)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}
