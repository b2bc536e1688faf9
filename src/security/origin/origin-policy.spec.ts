import fc from 'fast-check';
import { CohortConfig } from '../../config/cohort-config';
import { validateEnvironment } from '../../config/validate-environment';
import type { NodeAddress } from '../../node/node-address';
import { isLoopback } from '../client-address';
import { OriginPolicy } from './origin-policy';
import { normalizeOrigin, parseOrigins } from '../../common/origins';

const policy = (env: Record<string, string>, url: string) =>
  new OriginPolicy(new CohortConfig(validateEnvironment(env)), { url: () => url } as NodeAddress);

describe('OriginPolicy', () => {
  const p = policy({ CORS_ORIGINS: 'https://app.example.com, HTTP://LocalHost:5173' }, 'http://10.0.0.5:3000');

  it('passes requests without Origin and the configured origins, normalized', () => {
    expect(p.allows(undefined)).toBe(true);
    for (const origin of ['https://app.example.com', 'https://APP.example.com:443', 'http://localhost:5173'])
      expect(p.allows(origin)).toBe(true);
  });

  it("passes the node's own origin: the advertised one and loopback names on its port", () => {
    for (const origin of [
      'http://10.0.0.5:3000',
      'http://localhost:3000',
      'http://127.0.0.1:3000',
      'http://[::1]:3000',
    ])
      expect(p.allows(origin)).toBe(true);
  });

  it('refuses everything else, including look-alikes, other ports and schemes, null and repeated headers', () => {
    for (const origin of [
      'https://evil.example',
      'https://app.example.com.evil.example',
      'http://app.example.com',
      'http://localhost:3001',
      'https://127.0.0.1:3000',
      'null',
      '',
      'file://',
      'http://127.0.0.1:3000/path',
    ]) {
      expect(p.allows(origin)).toBe(false);
    }
    expect(p.allows(['https://app.example.com', 'https://app.example.com'])).toBe(false);
  });

  it('fuzzed Origin headers never throw and only the allowed origins pass', () => {
    const allowed = new Set([
      'https://app.example.com',
      'http://localhost:5173',
      'http://10.0.0.5:3000',
      'http://localhost:3000',
      'http://127.0.0.1:3000',
      'http://[::1]:3000',
    ]);
    const origin = fc.oneof(
      fc.string({ maxLength: 100 }),
      fc.webUrl(),
      fc.webUrl().map((u) => new URL(u).origin),
    );
    fc.assert(
      fc.property(origin, (value) => {
        expect(p.allows(value)).toBe(allowed.has(normalizeOrigin(value) ?? ''));
      }),
      { numRuns: 200 },
    );
  });
});

describe('origins', () => {
  it('normalizes origins and refuses anything with a path, credentials or another scheme', () => {
    expect(normalizeOrigin('https://App.Example.com:443/')).toBe('https://app.example.com');
    for (const bad of ['app.example.com', 'ftp://x', 'https://u:p@x', 'https://x/a', 'https://x?q', 'null'])
      expect(normalizeOrigin(bad)).toBeNull();
    expect(parseOrigins(' https://a.example , ,http://b.example:8080')).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
    expect(() => parseOrigins('https://a.example/app')).toThrow(/not an origin/);
  });
});

describe('isLoopback', () => {
  it('is every 127.x, ::1 and IPv4-mapped loopback, and nothing else', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.3.4',
      '::1',
      '::ffff:127.0.0.1',
      '::FFFF:127.9.9.9',
      '0:0:0:0:0:0:0:1',
    ])
      expect(isLoopback(address)).toBe(true);
    for (const address of [
      '10.0.0.1',
      '::ffff:10.0.0.1',
      '128.0.0.1',
      '1127.0.0.1',
      '::',
      '0.0.0.0',
      '',
      undefined,
      'localhost',
      'fe80::1',
    ])
      expect(isLoopback(address)).toBe(false);
  });
});
