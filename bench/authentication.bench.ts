import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { io } from 'socket.io-client';
import { CohortProcess } from './harness/cohort-process';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { ms, percentile, perSecond, ratio, table } from './harness/stats';

/**
 * Time to authenticate socket.io connections with JWTs: `count` sockets, each with a JWT of its own
 * (HS256 secret, or RS256 through a public key), opened `concurrency` at a time against a node in a
 * child process; the baseline is the same connections to a node without authentication, in the same
 * run. Each connection is measured from `io()` to `connect`, so the figure includes the handshake's
 * JWT verification and nothing of the requests after it.
 */
export interface ConnectResult {
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  refused: number;
}

const SECRET = 'benchmark-hs256-secret-of-at-least-32-bytes';

export async function authenticatedConnects(
  count: number,
  concurrency: number,
): Promise<{ open: ConnectResult; hs256: ConnectResult; rs256: ConnectResult }> {
  const dir = mkdtempSync(join(tmpdir(), 'cohort-bench-auth-'));
  const limits = { MAX_CONNECTIONS_PER_IP: '0', RATE_LIMIT_SOCKET_EVENTS_PER_SECOND: '0' };
  try {
    const { generateKeyPairSync } = await import('node:crypto');
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(dir, 'jwt.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    const hsKey = new TextEncoder().encode(SECRET);
    const tokens = async (sign: (jwt: SignJWT) => Promise<string>) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          sign(new SignJWT({}).setSubject(`user-${i}`).setExpirationTime('1h').setIssuedAt()),
        ),
      );
    const hsTokens = await tokens((jwt) => jwt.setProtectedHeader({ alg: 'HS256' }).sign(hsKey));
    const rsTokens = await tokens((jwt) => jwt.setProtectedHeader({ alg: 'RS256' }).sign(privateKey));
    const open = await measured({ ...limits }, null, count, concurrency);
    const hs256 = await measured({ ...limits, AUTH_JWT_SECRET: SECRET }, hsTokens, count, concurrency);
    const rs256 = await measured(
      { ...limits, AUTH_JWT_PUBLIC_KEY_FILE: join(dir, 'jwt.pem') },
      rsTokens,
      count,
      concurrency,
    );
    return { open, hs256, rs256 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measured(
  env: Record<string, string>,
  tokens: string[] | null,
  count: number,
  concurrency: number,
): Promise<ConnectResult> {
  const node = await CohortProcess.start(env);
  const sockets: ReturnType<typeof io>[] = [];
  try {
    const latencies: number[] = [];
    let refused = 0;
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < count; i = next++) {
          const sent = process.hrtime.bigint();
          const socket = io(node.url, {
            transports: ['websocket'],
            reconnection: false,
            forceNew: true,
            auth: tokens ? { token: tokens[i] } : {},
          });
          sockets.push(socket);
          const ok = await new Promise<boolean>((resolve) => {
            socket.once('connect', () => resolve(true));
            socket.once('connect_error', () => resolve(false));
          });
          latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
          if (!ok) refused++;
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    latencies.sort((a, b) => a - b);
    return {
      seconds,
      perSecond: count / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      refused,
    };
  } finally {
    for (const socket of sockets) socket.close();
    await node.dispose();
  }
}

/** Section `authentication`: socket.io connections authenticating with JWTs, beside the same connections without. */
export const authenticationSection: BenchSection = {
  name: 'authentication',
  summary: 'opening 1,000 socket.io connections with a JWT each (HS256, RS256); vs the same without authentication',
  needsBuild: true,
  run: () => authentication(),
};

async function authentication(): Promise<void> {
  const count = scaled(1000, 20);
  const concurrency = 50;
  console.log(
    `Time to authenticate ${count} socket.io connections with JWTs, ${concurrency} at a time (baseline: the same connections without authentication)`,
  );
  const result = await attempt('authentication', () => authenticatedConnects(count, concurrency));
  if (!result) return;
  const row = (node: string, r: ConnectResult): string[] => [
    node,
    `${r.seconds.toFixed(2)} s`,
    perSecond(r.perSecond),
    ms(r.p50),
    ms(r.p99),
    String(r.refused),
    ratio(r.seconds, result.open.seconds),
  ];
  table(
    ['node', `${count} connections`, 'connections', 'p50', 'p99', 'refused', 'time vs no authentication'],
    [
      row('no authentication', result.open),
      row('JWT, HS256 (AUTH_JWT_SECRET)', result.hs256),
      row('JWT, RS256 (AUTH_JWT_PUBLIC_KEY_FILE)', result.rs256),
    ],
  );
}
