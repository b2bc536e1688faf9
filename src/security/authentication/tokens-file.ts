import { createHash } from 'node:crypto';

/** One static credential: the principal and the SHA-256 of its bearer token (never the token itself). */
export interface TokenEntry {
  name: string;
  tokenSha256: Buffer;
}

const PRINCIPAL = /^[A-Za-z][A-Za-z0-9_-]*:[^\s;]+$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * Parses AUTH_TOKENS_FILE: `{ "principals": [{ "name": "User:billing", "tokenSha256": "<hex>" }] }`.
 * Throws an Error naming the first bad entry, so a typo is reported (at start: the process stops; on a
 * later change: the last good file stays in force and the error is logged).
 */
export function parseTokensFile(text: string): TokenEntry[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  const principals = (document as { principals?: unknown } | null)?.principals;
  if (!Array.isArray(principals))
    throw new Error('expected { "principals": [{ "name": "User:...", "tokenSha256": "<64 hex digits>" }] }');
  const seen = new Set<string>();
  return principals.map((entry: unknown, index) => {
    const { name, tokenSha256 } = (entry ?? {}) as { name?: unknown; tokenSha256?: unknown };
    if (typeof name !== 'string' || !PRINCIPAL.test(name))
      throw new Error(`principals[${index}].name must be a principal such as "User:billing"`);
    if (typeof tokenSha256 !== 'string' || !SHA256_HEX.test(tokenSha256))
      throw new Error(`principals[${index}].tokenSha256 must be 64 hex digits (the SHA-256 of the token)`);
    const key = tokenSha256.toLowerCase();
    if (seen.has(key)) throw new Error(`principals[${index}]: the same token is listed twice`);
    seen.add(key);
    return { name, tokenSha256: Buffer.from(key, 'hex') };
  });
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
