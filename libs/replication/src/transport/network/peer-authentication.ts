import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Proof of a shared cluster secret on every replication connection (Kafka authenticates its
 * inter-broker listener; without this any process that reaches the port could fetch a partition's
 * records or pose as a follower). An HMAC-SHA256 challenge–response when the connection opens:
 *
 *   server → client  Challenge { nonce: Ns }
 *   client → server  Proof     { nonce: Nc, proof: HMAC(secret, "client" | Ns | Nc | from | to) }
 *   server → client  Accepted  { proof: HMAC(secret, "server" | Ns | Nc | from | to) }
 *
 * Both sides prove the secret (a node does not replicate to an impostor either), fresh nonces on both
 * sides make a recorded exchange useless on another connection, and the node ids inside the MAC bind
 * the connection to the sender it names: every later frame must carry that sender id.
 */
export interface PeerAuthentication {
  /** The shared secret (CLUSTER_SECRET_FILE), at least 32 bytes. */
  secret: Buffer;
  /** Cryptographically random bytes for nonces; a port, as all randomness in this library is (crypto.randomBytes in the app). */
  randomBytes(size: number): Buffer;
  /** How long the handshake may take before the connection is cut. Default 5000 ms. */
  handshakeTimeoutMs?: number;
}

export const NONCE_BYTES = 32;
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 5_000;

export function handshakeProof(
  secret: Buffer,
  side: 'client' | 'server',
  serverNonce: Buffer,
  clientNonce: Buffer,
  from: number,
  to: number,
): Buffer {
  return createHmac('sha256', secret)
    .update(`cohort-replication-v1|${side}|${from}|${to}|`)
    .update(serverNonce)
    .update(clientNonce)
    .digest();
}

/** A hex string from the wire as exactly `bytes` bytes, or null. */
export function bytesOfHex(value: unknown, bytes: number): Buffer | null {
  if (typeof value !== 'string' || value.length !== bytes * 2 || !/^[0-9a-f]+$/.test(value)) return null;
  return Buffer.from(value, 'hex');
}

export function sameProof(received: unknown, expected: Buffer): boolean {
  const bytes = bytesOfHex(received, expected.length);
  return bytes !== null && timingSafeEqual(bytes, expected);
}
