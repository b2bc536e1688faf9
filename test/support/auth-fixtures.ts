import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { io } from 'socket.io-client';

/** A JWT signed with `secret` (HS256); claims default to a valid token for `sub` expiring in an hour. */
export function signJwt(
  secret: string,
  claims: { sub?: string; exp?: number; nbf?: number; iss?: string; aud?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { sub = 'alice', exp = now + 3600, ...rest } = claims;
  return new SignJWT({ ...rest })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime(exp)
    .setIssuedAt(now)
    .sign(new TextEncoder().encode(secret));
}

/** Writes an AUTH_TOKENS_FILE for `tokens` (principal → token) into `dir` and returns its path. */
export function writeTokensFile(dir: string, tokens: Record<string, string>, name = 'tokens.json'): string {
  const path = join(dir, name);
  const principals = Object.entries(tokens).map(([principal, token]) => ({
    name: principal,
    tokenSha256: createHash('sha256').update(token).digest('hex'),
  }));
  writeFileSync(path, JSON.stringify({ principals }));
  return path;
}

/** Connects and resolves with the outcome: the socket, or the connect_error's message and data. */
export function tryConnect(url: string, auth: Record<string, unknown> = {}, extraHeaders?: Record<string, string>) {
  const socket = io(url, { transports: ['websocket'], auth, reconnection: false, forceNew: true, extraHeaders });
  return new Promise<{ connected: true; socket: typeof socket } | { connected: false; message: string; data: unknown }>(
    (resolve) => {
      socket.once('connect', () => resolve({ connected: true, socket }));
      socket.once('connect_error', (error: Error & { data?: unknown }) => {
        socket.close();
        resolve({ connected: false, message: error.message, data: error.data });
      });
    },
  );
}
