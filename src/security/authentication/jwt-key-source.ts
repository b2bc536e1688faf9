import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';

import type { JwtKeySetting } from '../../config/security-config';

export type { JwtKeySetting };

/** A key (or key-set lookup) for jose's jwtVerify plus the algorithms it may be used with, pinned. */
export interface JwtKey {
  key: Uint8Array | KeyObject | JWTVerifyGetKey;
  algorithms: string[];
}

/** The algorithms accepted with a public key or JWKS; anything else (including `none`) never verifies. */
const ASYMMETRIC = ['RS256', 'ES256', 'EdDSA'];

/**
 * Loads the key a setting names. Throws an Error saying what is wrong with the file, which config
 * validation reports against the variable (and the verifier keeps its last good key on a reload).
 * Algorithms are pinned to the key's type: an RSA key verifies RS256 only, so a token cannot pick a
 * weaker algorithm or use the public key as an HMAC secret (the classic RS256/HS256 confusion).
 */
export function loadJwtKey(setting: JwtKeySetting): JwtKey {
  if (setting.kind === 'secret') return { key: new TextEncoder().encode(setting.secret), algorithms: ['HS256'] };
  const text = readFileSync(setting.path, 'utf8');
  if (setting.kind === 'jwks') {
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw new Error(`not JSON: ${(error as Error).message}`);
    }
    const keys = (document as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys) || keys.length === 0)
      throw new Error('expected a JWKS document { "keys": [ ... ] } with at least one key');
    if (keys.some((k) => typeof k !== 'object' || k === null || (k as { kty?: unknown }).kty === 'oct')) {
      throw new Error(
        'every key must be a public key object (symmetric "oct" keys are not accepted; use AUTH_JWT_SECRET)',
      );
    }
    return { key: createLocalJWKSet(document as Parameters<typeof createLocalJWKSet>[0]), algorithms: ASYMMETRIC };
  }
  let key: KeyObject;
  try {
    key = createPublicKey(text);
  } catch (error) {
    throw new Error(`not a PEM public key: ${(error as Error).message}`);
  }
  return { key, algorithms: [algorithmOf(key)] };
}

function algorithmOf(key: KeyObject): string {
  const type = key.asymmetricKeyType;
  if (type === 'rsa') return 'RS256';
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error(
    `a ${type}${key.asymmetricKeyDetails?.namedCurve ? ` (${key.asymmetricKeyDetails.namedCurve})` : ''} key: expected RSA (RS256), EC P-256 (ES256) or Ed25519 (EdDSA)`,
  );
}
