import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadJwtKey } from './authentication/jwt-key-source';
import { parseTokensFile } from './authentication/tokens-file';
import { readClusterSecret } from './cluster/cluster-secret';
import { parseAllowedHosts } from '../common/hosts';
import { parseOrigins } from '../common/origins';
import { SecurityConfig } from '../config/security-config';
import type { EnvironmentVariables } from '../config/environment-variables';

/**
 * The security variables checked against each other and against the files they name, so that a node
 * never starts half-secured: each problem names its variable. Files are read here once (the services
 * read them again when they start, and the token and key files again on every change).
 */
export function securityProblems(env: EnvironmentVariables): string[] {
  const problems: string[] = [];
  const check = (variable: string, value: string | undefined, read: (text: string) => unknown) => {
    if (!value) return;
    let text: string;
    try {
      text = readFileSync(value, 'utf8');
    } catch (error) {
      problems.push(
        `${variable}=${JSON.stringify(value)}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
      return;
    }
    try {
      read(text);
    } catch (error) {
      problems.push(`${variable}=${JSON.stringify(value)}: ${(error as Error).message}`);
    }
  };

  check('AUTH_TOKENS_FILE', env.AUTH_TOKENS_FILE, parseTokensFile);
  const jwtKeys = [
    env.AUTH_JWT_SECRET && 'AUTH_JWT_SECRET',
    env.AUTH_JWT_PUBLIC_KEY_FILE && 'AUTH_JWT_PUBLIC_KEY_FILE',
    env.AUTH_JWT_JWKS_FILE && 'AUTH_JWT_JWKS_FILE',
  ].filter(Boolean);
  if (jwtKeys.length > 1) problems.push(`${jwtKeys.join(', ')}: set only one way to verify JWTs`);
  check('AUTH_JWT_PUBLIC_KEY_FILE', env.AUTH_JWT_PUBLIC_KEY_FILE, () =>
    loadJwtKey({ kind: 'public-key', path: env.AUTH_JWT_PUBLIC_KEY_FILE! }),
  );
  check('AUTH_JWT_JWKS_FILE', env.AUTH_JWT_JWKS_FILE, () =>
    loadJwtKey({ kind: 'jwks', path: env.AUTH_JWT_JWKS_FILE! }),
  );
  if (jwtKeys.length === 0) {
    if (env.AUTH_JWT_ISSUER)
      problems.push(
        'AUTH_JWT_ISSUER is set but no JWT key is (AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY_FILE or AUTH_JWT_JWKS_FILE)',
      );
    if (env.AUTH_JWT_AUDIENCE)
      problems.push(
        'AUTH_JWT_AUDIENCE is set but no JWT key is (AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY_FILE or AUTH_JWT_JWKS_FILE)',
      );
  }

  if (Boolean(env.TLS_CERT_FILE) !== Boolean(env.TLS_KEY_FILE))
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE: set both or neither');
  check('TLS_CERT_FILE', env.TLS_CERT_FILE, (text) => new X509Certificate(text));
  check('TLS_KEY_FILE', env.TLS_KEY_FILE, (text) => createPrivateKey(text));
  check('TLS_CA_FILE', env.TLS_CA_FILE, (text) => new X509Certificate(text));
  if (env.TLS_CLIENT_AUTH === 'required' && !(env.TLS_CERT_FILE && env.TLS_CA_FILE)) {
    problems.push(
      'TLS_CLIENT_AUTH=required needs TLS_CERT_FILE, TLS_KEY_FILE and TLS_CA_FILE (the CA that signs client certificates)',
    );
  }
  if (env.TLS_CA_FILE && !env.TLS_CERT_FILE) problems.push('TLS_CA_FILE is set but TLS_CERT_FILE is not');

  check('CLUSTER_SECRET_FILE', env.CLUSTER_SECRET_FILE, (text) => readClusterSecret(text));
  try {
    parseOrigins(env.CORS_ORIGINS);
  } catch (error) {
    problems.push(`CORS_ORIGINS=${JSON.stringify(env.CORS_ORIGINS)}: ${(error as Error).message}`);
  }
  try {
    parseAllowedHosts(env.ALLOWED_HOSTS);
  } catch (error) {
    problems.push(`ALLOWED_HOSTS=${JSON.stringify(env.ALLOWED_HOSTS)}: ${(error as Error).message}`);
  }
  if (
    problems.length === 0 &&
    env.CLUSTER_MODE === 'redis' &&
    !env.CLUSTER_SECRET_FILE &&
    new SecurityConfig(env).authenticationEnabled
  ) {
    problems.push(
      'CLUSTER_SECRET_FILE is required in cluster mode when authentication is on: without it any process could replicate from or to this node (scripts/gen-secrets.sh makes one)',
    );
  }
  return problems;
}
