import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, type JWTPayload, SignJWT } from 'jose';
import { loadJwtKey } from './jwt-key-source';
import { JwtRejected, JwtVerifier } from './jwt-verifier';

// RSA key generation and jose's WebCrypto calls take seconds on a loaded machine.
jest.setTimeout(30_000);

const NOW = 1_800_000_000_000;
const SECRET = 'x'.repeat(32);
const now = () => NOW;
const seconds = (ms: number) => Math.floor(ms / 1000);
let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'cohort-jwt-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sign(
  key: Parameters<SignJWT['sign']>[0],
  alg: string,
  claims: JWTPayload = {},
  kid?: string,
): Promise<string> {
  return new SignJWT({ sub: 'alice', exp: seconds(NOW) + 60, iat: seconds(NOW), ...claims })
    .setProtectedHeader({ alg, ...(kid ? { kid } : {}) })
    .sign(key);
}

async function rejection(verifier: JwtVerifier, token: string): Promise<string> {
  try {
    await verifier.verify(token);
    return 'accepted';
  } catch (error) {
    if (error instanceof JwtRejected) return error.message;
    throw error;
  }
}

describe('JwtVerifier', () => {
  const hs = new JwtVerifier({
    keys: { kind: 'secret', secret: SECRET },
    issuer: 'iss-1',
    audience: ['cohort', 'other'],
    now,
  });
  const secretKey = new TextEncoder().encode(SECRET);

  it('accepts a valid HS256 token: principal User:<sub>, expiry from exp', async () => {
    await expect(hs.verify(await sign(secretKey, 'HS256', { iss: 'iss-1', aud: 'cohort' }))).resolves.toEqual({
      principal: 'User:alice',
      expiresAtMs: (seconds(NOW) + 60) * 1000,
    });
  });

  it.each([
    ['expired', { exp: seconds(NOW) - 1 }, /exp/],
    ['expiring right now (exp is exact, no leeway)', { exp: seconds(NOW) }, /exp/],
    ['not yet valid', { nbf: seconds(NOW) + 120 }, /nbf/],
    ['issued an hour in the future', { iat: seconds(NOW) + 3600 }, /iat/],
    ['issued 31 s in the future (past the 30 s of skew)', { iat: seconds(NOW) + 31 }, /iat/],
    ['of another issuer', { iss: 'iss-2' }, /iss/],
    ['without an issuer', { iss: undefined }, /iss/],
    ['for another audience', { aud: 'nobody' }, /aud/],
    ['without exp', { exp: undefined }, /exp/],
    ['without sub', { sub: undefined }, /sub/],
    ['with a sub that could not be a principal', { sub: 'a;b' }, /sub/],
  ])('refuses a token %s', async (_what, claims, reason) => {
    const token = await sign(secretKey, 'HS256', { iss: 'iss-1', aud: 'cohort', ...claims });
    expect(await rejection(hs, token)).toMatch(reason);
  });

  it('tolerates 30 s of clock skew on nbf and iat', async () => {
    await expect(
      hs.verify(await sign(secretKey, 'HS256', { iss: 'iss-1', aud: 'cohort', nbf: seconds(NOW) + 20 })),
    ).resolves.toBeDefined();
    await expect(
      hs.verify(await sign(secretKey, 'HS256', { iss: 'iss-1', aud: 'cohort', iat: seconds(NOW) + 30 })),
    ).resolves.toBeDefined();
  });

  it('refuses another secret, alg none and a tampered payload', async () => {
    expect(
      await rejection(
        hs,
        await sign(new TextEncoder().encode('y'.repeat(32)), 'HS256', { iss: 'iss-1', aud: 'cohort' }),
      ),
    ).toMatch(/signature/);
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const payload = Buffer.from(
      JSON.stringify({ sub: 'admin', exp: seconds(NOW) + 60, iss: 'iss-1', aud: 'cohort' }),
    ).toString('base64url');
    expect(await rejection(hs, `${header}.${payload}.`)).not.toBe('accepted');
    const good = await sign(secretKey, 'HS256', { iss: 'iss-1', aud: 'cohort' });
    const [h, , s] = good.split('.');
    expect(await rejection(hs, `${h}.${payload}.${s}`)).toMatch(/signature/);
  });

  it.each([
    ['RS256', () => generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['ES256', () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' })],
    ['EdDSA', () => generateKeyPairSync('ed25519')],
  ])('verifies %s with AUTH_JWT_PUBLIC_KEY_FILE, and only that algorithm', async (alg, generate) => {
    const { publicKey, privateKey } = generate();
    const path = join(dir, `${alg}.pem`);
    writeFileSync(path, publicKey.export({ type: 'spki', format: 'pem' }));
    const verifier = new JwtVerifier({ keys: { kind: 'public-key', path }, now });
    await expect(verifier.verify(await sign(privateKey, alg))).resolves.toMatchObject({ principal: 'User:alice' });
    // The public key's bytes used as an HMAC secret (the RS256/HS256 confusion) never verify.
    const asSecret = new TextEncoder().encode(publicKey.export({ type: 'spki', format: 'pem' }) as string);
    expect(await rejection(verifier, await sign(asSecret, 'HS256'))).not.toBe('accepted');
  });

  it('verifies with a JWKS file by kid, re-reading it when it changes', async () => {
    const first = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const second = generateKeyPairSync('ed25519');
    const path = join(dir, 'jwks.json');
    const jwk = async (key: typeof first.publicKey, kid: string) => ({ ...(await exportJWK(key)), kid });
    writeFileSync(path, JSON.stringify({ keys: [await jwk(first.publicKey, 'k1')] }));
    const verifier = new JwtVerifier({ keys: { kind: 'jwks', path }, now });
    try {
      await expect(verifier.verify(await sign(first.privateKey, 'ES256', {}, 'k1'))).resolves.toBeDefined();
      const rotated = await sign(second.privateKey, 'EdDSA', {}, 'k2');
      expect(await rejection(verifier, rotated)).toMatch(/ERR_JWKS_NO_MATCHING_KEY/);
      writeFileSync(
        path,
        JSON.stringify({ keys: [await jwk(first.publicKey, 'k1'), await jwk(second.publicKey, 'k2')] }),
      );
      for (let i = 0; (await rejection(verifier, rotated)) !== 'accepted'; i++) {
        if (i > 200) throw new Error('the rotated key was not picked up');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      verifier.close();
    }
  });

  it('loadJwtKey refuses files that hold no usable key, saying why', () => {
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    expect(() => loadJwtKey({ kind: 'public-key', path: write('bad.pem', 'hello') })).toThrow(/not a PEM public key/);
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({
      type: 'spki',
      format: 'pem',
    }) as string;
    expect(() => loadJwtKey({ kind: 'public-key', path: write('p384.pem', p384) })).toThrow(/secp384r1.*expected RSA/);
    expect(() => loadJwtKey({ kind: 'jwks', path: write('j1.json', '{"keys":[]}') })).toThrow(/at least one key/);
    expect(() => loadJwtKey({ kind: 'jwks', path: write('j2.json', '{"keys":[{"kty":"oct","k":"abc"}]}') })).toThrow(
      /oct/,
    );
  });
});
