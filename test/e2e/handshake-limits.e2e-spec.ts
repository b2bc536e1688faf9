import { request as httpRequest } from 'node:http';
import { WebSocket } from 'ws';
import { appPerFile } from '../support/app-per-file';
import { tryConnect } from '../support/auth-fixtures';
import { eventually } from '../support/group-member';
import { sample } from '../support/prometheus-sample';

// Real sockets on a shared machine: bounded, but not by Jest's 5 s default.
jest.setTimeout(30_000);

/**
 * Unauthenticated engine.io sessions (docs/security.md, "Limits"): a client that opens handshakes and
 * never authenticates held 136 MiB with 20,000 of them, since MAX_CONNECTIONS_PER_IP was only checked
 * once a socket.io CONNECT arrived and socket.io waits 45 s for one.
 */
const capped = appPerFile({ env: { MAX_CONNECTIONS_PER_IP: '5' } });
const quick = appPerFile({ env: { SOCKET_AUTH_TIMEOUT_MS: '300' } });
const nodeCapped = appPerFile({ env: { MAX_CONNECTIONS: '4' } });

interface RawSession {
  /** The engine.io open packet arrived: the node holds a session for it. */
  opened: Promise<boolean>;
  /** The HTTP status of a refused upgrade (0 when it was not refused). */
  refusedWith: Promise<number>;
  refusal: Promise<string>;
  closed: Promise<void>;
  socket: WebSocket;
}

/** A raw websocket handshake that never sends socket.io's CONNECT (no credential, nothing), from `localAddress` if given. */
function rawSession(url: string, localAddress?: string): RawSession {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`, { localAddress });
  socket.on('error', () => undefined);
  let refusal = '';
  const refusedWith = new Promise<number>((resolve) => {
    socket.on('unexpected-response', (request, response) => {
      response.on('data', (chunk: Buffer) => (refusal += chunk.toString()));
      response.on('end', () => {
        resolve(response.statusCode ?? 0);
        request.destroy();
      });
    });
    socket.on('open', () => resolve(0));
  });
  const opened = new Promise<boolean>((resolve) => {
    socket.on('message', (data: Buffer) => data.toString().startsWith('0') && resolve(true));
    socket.on('close', () => resolve(false));
    void refusedWith.then((status) => status !== 0 && resolve(false));
  });
  return {
    socket,
    refusedWith,
    refusal: refusedWith.then(() => refusal),
    opened,
    closed: new Promise((resolve) => socket.on('close', () => resolve())),
  };
}

describe('engine.io handshakes before authentication', () => {
  it('refuses handshakes from one address past MAX_CONNECTIONS_PER_IP before any session exists, and counts them', async () => {
    const sessions = Array.from({ length: 20 }, () => rawSession(capped.url));
    const opened = await Promise.all(sessions.map((s) => s.opened));
    expect(opened.filter(Boolean)).toHaveLength(5);
    const statuses = await Promise.all(sessions.map((s) => s.refusedWith));
    expect(statuses.filter((s) => s === 400)).toHaveLength(15);
    const refused = sessions[statuses.indexOf(400)];
    await expect(refused.refusal).resolves.toContain('MAX_CONNECTIONS_PER_IP');
    // A real client is refused too while the raw sessions hold the address's slots...
    expect((await tryConnect(capped.url)).connected).toBe(false);
    const metrics = await capped.http().get('/metrics').expect(200);
    expect(sample(metrics.text, 'cohort_socket_handshakes_refused_total', { reason: 'max_connections_per_ip' })).toBe(
      16,
    );
    // ...and connects once they are gone.
    for (const s of sessions) s.socket.terminate();
    await eventually(async () => {
      const again = await tryConnect(capped.url);
      if (again.connected) again.socket.close();
      return again.connected;
    }, 'a free connection slot');
  });

  it('refuses handshakes past MAX_CONNECTIONS however many addresses they come from, and serves REST meanwhile', async () => {
    // Six loopback addresses, one session each: no address is near MAX_CONNECTIONS_PER_IP (1,000).
    const sessions = [2, 3, 4, 5, 6, 7].map((host) => rawSession(nodeCapped.url, `127.0.0.${host}`));
    const opened = await Promise.all(sessions.map((s) => s.opened));
    expect(opened.filter(Boolean)).toHaveLength(4);
    const statuses = await Promise.all(sessions.map((s) => s.refusedWith));
    expect(statuses.filter((s) => s === 400)).toHaveLength(2);
    await expect(sessions[statuses.indexOf(400)].refusal).resolves.toContain('MAX_CONNECTIONS');
    expect((await tryConnect(nodeCapped.url)).connected).toBe(false);
    // The cap is on sockets: an operator's REST calls still get in.
    await nodeCapped.http().get('/health/live').expect(200);
    const metrics = await nodeCapped.http().get('/metrics').expect(200);
    expect(sample(metrics.text, 'cohort_socket_handshakes_refused_total', { reason: 'max_connections' })).toBe(3);
    expect(sample(metrics.text, 'cohort_socket_handshakes_refused_total', { reason: 'max_connections_per_ip' })).toBe(
      0,
    );
    // One session gone frees one slot, for a client from any address.
    sessions[opened.indexOf(true)].socket.terminate();
    await eventually(async () => {
      const again = await tryConnect(nodeCapped.url);
      if (again.connected) again.socket.close();
      return again.connected;
    }, 'the freed connection slot');
    for (const s of sessions) s.socket.terminate();
  });

  it('closes a session that has not authenticated within SOCKET_AUTH_TIMEOUT_MS, and counts it', async () => {
    const idle = rawSession(quick.url);
    await expect(idle.opened).resolves.toBe(true);
    // Far longer than the timeout, far shorter than socket.io's own 45 s wait for a CONNECT.
    const outcome = await Promise.race([
      idle.closed.then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still open after 10 s'), 10_000).unref()),
    ]);
    expect(outcome).toBe('closed');
    const metrics = await quick.http().get('/metrics').expect(200);
    expect(sample(metrics.text, 'cohort_socket_auth_timeouts_total', {})).toBe(1);
  });

  it('keeps a session that authenticated in time open past the timeout', async () => {
    const outcome = await tryConnect(quick.url);
    if (!outcome.connected) throw new Error(outcome.message);
    let disconnected = false;
    outcome.socket.on('disconnect', () => (disconnected = true));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(disconnected).toBe(false);
    await expect(outcome.socket.timeout(5000).emitWithAck('ListGroups', {})).resolves.toMatchObject({ errorCode: 0 });
    outcome.socket.close();
  });

  it('serves only the websocket transport, as docs/protocol.md says: a long-polling handshake is refused', async () => {
    const target = new URL(capped.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: target.hostname, port: target.port, path: '/socket.io/?EIO=4&transport=polling' },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('Transport unknown');
  });
});
