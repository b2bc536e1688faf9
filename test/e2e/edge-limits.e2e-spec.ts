import { WebSocket } from 'ws';
import request from 'supertest';
import { tryConnect } from '../support/auth-fixtures';
import { appPerFile } from '../support/app-per-file';
import { eventually } from '../support/group-member';

// Real sockets, child processes and (some) clusters on a shared machine: bounded, but not by Jest's 5 s default.
jest.setTimeout(30_000);

// Rate limits and cross-site requests at the edges, on loopback (where protected mode lets everyone in).

const limited = appPerFile({
  env: { RATE_LIMIT_REST_PER_MINUTE: '5', RATE_LIMIT_SOCKET_EVENTS_PER_SECOND: '5', MAX_CONNECTIONS_PER_IP: '3' },
});
const site = appPerFile({ env: { CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' } });

describe('limits', () => {
  it('answers REST requests over RATE_LIMIT_REST_PER_MINUTE with 429 and error 89; health probes are not limited', async () => {
    const statuses: number[] = [];
    let last: request.Response | undefined;
    for (let i = 0; i < 7; i++) {
      last = await limited.http().get('/v1/topics');
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(last!.body).toMatchObject({ statusCode: 429, errorCode: 89, error: 'THROTTLING_QUOTA_EXCEEDED' });
    expect(last!.headers['retry-after']).toBeDefined();
    await limited.http().get('/health/live').expect(200);
  });

  it('answers socket events over RATE_LIMIT_SOCKET_EVENTS_PER_SECOND with error 89 on the ack; the socket stays and recovers', async () => {
    const outcome = await tryConnect(limited.url);
    if (!outcome.connected) throw new Error(outcome.message);
    const socket = outcome.socket;
    const acks = await Promise.all(
      Array.from(
        { length: 20 },
        () => socket.timeout(5000).emitWithAck('ListGroups', {}) as Promise<{ errorCode: number; errorName?: string }>,
      ),
    );
    const throttled = acks.filter((a) => a.errorCode === 89);
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled[0].errorName).toBe('THROTTLING_QUOTA_EXCEEDED');
    expect(acks.filter((a) => a.errorCode === 0).length).toBeGreaterThan(0);
    expect(socket.connected).toBe(true);
    await eventually(
      async () => ((await socket.timeout(5000).emitWithAck('ListGroups', {})) as { errorCode: number }).errorCode === 0,
      'the bucket to refill',
    );
    socket.close();
  });

  it('refuses connections over MAX_CONNECTIONS_PER_IP before a session opens, and accepts again once one closes', async () => {
    const open = [];
    for (let i = 0; i < 3; i++) {
      const outcome = await tryConnect(limited.url);
      if (!outcome.connected) throw new Error(`connection ${i}: ${outcome.message}`);
      open.push(outcome.socket);
    }
    const refused = await tryConnect(limited.url);
    expect(refused.connected).toBe(false);
    // engine.io refuses the handshake itself (EngineHandshakes): a raw client reads why in the answer.
    const answer = await new Promise<{ status: number; body: string }>((resolve) => {
      const raw = new WebSocket(`${limited.url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
      raw.on('error', () => undefined);
      raw.on('open', () => resolve({ status: 101, body: '' }));
      raw.on('unexpected-response', (req, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          req.destroy();
          resolve({ status: response.statusCode ?? 0, body });
        });
      });
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('MAX_CONNECTIONS_PER_IP');
    open.pop()!.close();
    await eventually(async () => {
      const again = await tryConnect(limited.url);
      if (again.connected) open.push(again.socket);
      return again.connected;
    }, 'a free connection slot');
    for (const s of open) s.close();
  });
});

describe('cross-site requests', () => {
  it('refuses REST calls with a foreign Origin (403, error 58) even on loopback; an allowed Origin gets CORS headers; none passes', async () => {
    const foreign = await site.http().get('/v1/groups').set('origin', 'https://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ errorCode: 58, error: 'SASL_AUTHENTICATION_FAILED' });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    for (const origin of [
      'https://app.example.com',
      'http://localhost:5173',
      `http://127.0.0.1:${new URL(site.url).port}`,
    ]) {
      const allowed = await site.http().get('/v1/groups').set('origin', origin);
      expect(allowed.status).toBe(200);
      expect(allowed.headers['access-control-allow-origin']).toBe(origin);
    }
    await site.http().get('/v1/groups').expect(200);
    const preflight = await site
      .http()
      .options('/v1/groups/g')
      .set('origin', 'https://app.example.com')
      .set('access-control-request-method', 'DELETE');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toContain('DELETE');
    const foreignPreflight = await site
      .http()
      .options('/v1/groups/g')
      .set('origin', 'http://127.0.0.1.evil.example')
      .set('access-control-request-method', 'DELETE');
    expect(foreignPreflight.status).toBe(403);
  });

  it('refuses a socket.io handshake with a foreign Origin; an allowed one and none connect', async () => {
    const foreign = await tryConnect(site.url, {}, { origin: 'https://evil.example' });
    expect(foreign).toMatchObject({
      connected: false,
      data: { errorCode: 58, errorName: 'SASL_AUTHENTICATION_FAILED' },
    });
    for (const headers of [{ origin: 'https://app.example.com' }, undefined]) {
      const outcome = await tryConnect(site.url, {}, headers);
      expect(outcome.connected).toBe(true);
      if (outcome.connected) outcome.socket.close();
    }
  });
});
