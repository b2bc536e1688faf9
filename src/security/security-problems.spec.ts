import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CohortConfig } from '../config/cohort-config';
import { ConfigurationError, validateEnvironment as validateAll } from '../config/validate-environment';
import { securityProblems } from './security-problems';

/** The environment checked as the node checks it at start: its variables, then the files they name. */
const validateEnvironment = (env: Record<string, string | undefined>) => validateAll(env, securityProblems);

const dir = mkdtempSync(join(tmpdir(), 'cohort-security-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    validateEnvironment(env);
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems;
    throw error;
  }
  return [];
}

describe('security configuration', () => {
  it('defaults: no authentication, protected mode on, limits on, no extra origins', () => {
    const config = new CohortConfig(validateEnvironment({}));
    expect(config.authenticationEnabled).toBe(false);
    expect(config.security).toMatchObject({
      protectedMode: true,
      tls: null,
      tlsClientAuth: 'none',
      restRequestsPerMinute: 6000,
      socketEventsPerSecond: 1000,
      maxConnectionsPerIp: 1000,
      corsOrigins: [],
      superUsers: [],
    });
  });

  it('turns authentication on with any credential source and resolves lists', () => {
    const tokens = write('ok.json', JSON.stringify({ principals: [] }));
    expect(new CohortConfig(validateEnvironment({ AUTH_TOKENS_FILE: tokens })).authenticationEnabled).toBe(true);
    const config = new CohortConfig(
      validateEnvironment({
        AUTH_JWT_SECRET: 's'.repeat(32),
        AUTH_JWT_AUDIENCE: 'a, b',
        SUPER_USERS: 'User:CN=x,O=y; User:ops',
      }),
    );
    expect(config.authenticationEnabled).toBe(true);
    expect(config.security).toMatchObject({ jwtAudience: ['a', 'b'], superUsers: ['User:CN=x,O=y', 'User:ops'] });
  });

  it('names each bad variable: unreadable and malformed files, bad combinations, bad values', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(problemsOf({ AUTH_TOKENS_FILE: join(dir, 'missing.json') })).toEqual([
      expect.stringMatching(/^AUTH_TOKENS_FILE=".*missing.json": cannot read it \(ENOENT\)/),
    ]);
    expect(
      problemsOf({ AUTH_TOKENS_FILE: write('bad.json', '{"principals":[{"name":"User:a","tokenSha256":"xyz"}]}') }),
    ).toEqual([expect.stringMatching(/^AUTH_TOKENS_FILE=.*tokenSha256 must be 64 hex digits/)]);
    expect(problemsOf({ AUTH_JWT_SECRET: 'short' })).toEqual([
      'AUTH_JWT_SECRET=<5 characters, not shown>: AUTH_JWT_SECRET must be at least 32 characters (HS256 needs a 256-bit key)',
    ]);
    const pem = write('rsa.pem', rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    expect(problemsOf({ AUTH_JWT_SECRET: 's'.repeat(32), AUTH_JWT_PUBLIC_KEY_FILE: pem })).toEqual([
      'AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY_FILE: set only one way to verify JWTs',
    ]);
    expect(problemsOf({ AUTH_JWT_ISSUER: 'x' })).toEqual([
      expect.stringMatching(/^AUTH_JWT_ISSUER is set but no JWT key is/),
    ]);
    expect(problemsOf({ TLS_CERT_FILE: pem })).toEqual([
      'TLS_CERT_FILE and TLS_KEY_FILE: set both or neither',
      expect.stringMatching(/^TLS_CERT_FILE=/),
    ]);
    expect(problemsOf({ TLS_CLIENT_AUTH: 'requested' })).toEqual([
      expect.stringMatching(/^TLS_CLIENT_AUTH="requested": .*none, required/),
    ]);
    expect(problemsOf({ PROTECTED_MODE: 'off' })).toEqual([expect.stringMatching(/^PROTECTED_MODE="off": .*boolean/)]);
    expect(problemsOf({ CORS_ORIGINS: 'https://a.example/app' })).toEqual([
      expect.stringMatching(/^CORS_ORIGINS=.*not an origin/),
    ]);
    expect(problemsOf({ ALLOWED_HOSTS: 'cohort.internal:8080' })).toEqual([
      expect.stringMatching(/^ALLOWED_HOSTS=.*not a host name/),
    ]);
    expect(problemsOf({ RATE_LIMIT_REST_PER_MINUTE: '-1' })).toEqual([
      expect.stringMatching(/^RATE_LIMIT_REST_PER_MINUTE="-1"/),
    ]);
    expect(problemsOf({ CLUSTER_SECRET_FILE: write('short.secret', 'abc\n') })).toEqual([
      expect.stringMatching(/^CLUSTER_SECRET_FILE=.*at least 32/),
    ]);
  });

  it('counts what a principal creates only with authentication by default, and takes an explicit limit either way', () => {
    expect(new CohortConfig(validateEnvironment({})).security).toMatchObject({
      maxGroupsPerPrincipal: 0,
      maxTopicsPerPrincipal: 0,
    });
    const secret = { AUTH_JWT_SECRET: 's'.repeat(32) };
    expect(new CohortConfig(validateEnvironment(secret)).security).toMatchObject({
      maxGroupsPerPrincipal: 1000,
      maxTopicsPerPrincipal: 100,
    });
    expect(
      new CohortConfig(validateEnvironment({ ...secret, MAX_GROUPS_PER_PRINCIPAL: '0', MAX_TOPICS_PER_PRINCIPAL: '5' }))
        .security,
    ).toMatchObject({ maxGroupsPerPrincipal: 0, maxTopicsPerPrincipal: 5 });
    expect(
      new CohortConfig(validateEnvironment({ MAX_GROUPS_PER_PRINCIPAL: '3' })).security.maxGroupsPerPrincipal,
    ).toBe(3);
    expect(problemsOf({ MAX_GROUPS_PER_PRINCIPAL: '-1', MAX_TOPICS_PER_PRINCIPAL: 'many' })).toEqual([
      expect.stringMatching(/^MAX_GROUPS_PER_PRINCIPAL="-1"/),
      expect.stringMatching(/^MAX_TOPICS_PER_PRINCIPAL="many"/),
    ]);
  });

  it('requires CLUSTER_SECRET_FILE in cluster mode when authentication is on', () => {
    expect(problemsOf({ CLUSTER_MODE: 'redis', AUTH_JWT_SECRET: 's'.repeat(32) })).toEqual([
      expect.stringMatching(/^CLUSTER_SECRET_FILE is required in cluster mode when authentication is on/),
    ]);
    expect(
      problemsOf({
        CLUSTER_MODE: 'redis',
        AUTH_JWT_SECRET: 's'.repeat(32),
        CLUSTER_SECRET_FILE: write('ok.secret', 'k'.repeat(40)),
      }),
    ).toEqual([]);
    expect(problemsOf({ CLUSTER_MODE: 'redis' })).toEqual([]);
  });
});
