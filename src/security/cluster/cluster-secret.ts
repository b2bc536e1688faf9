import { readFileSync } from 'node:fs';

/** Shortest secret accepted: 256 bits, as long as the HMAC-SHA256 key it becomes. */
const MIN_SECRET_BYTES = 32;

/**
 * The cluster secret from CLUSTER_SECRET_FILE's text: surrounding whitespace (a trailing newline) is
 * not part of it. Throws when it is too short to be a key (scripts/gen-secrets.sh writes 48 random bytes as base64).
 */
export function readClusterSecret(text: string): Buffer {
  const secret = Buffer.from(text.trim(), 'utf8');
  if (secret.length < MIN_SECRET_BYTES)
    throw new Error(
      `the secret is ${secret.length} bytes; it must be at least ${MIN_SECRET_BYTES} (e.g. openssl rand -base64 48)`,
    );
  return secret;
}

export function loadClusterSecret(path: string): Buffer {
  return readClusterSecret(readFileSync(path, 'utf8'));
}
