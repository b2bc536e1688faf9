import { WebSocket } from 'ws';
import { appPerFile } from '../support/app-per-file';

// Real sockets on a shared machine: bounded, but not by Jest's 5 s default.
jest.setTimeout(30_000);

/**
 * DNS rebinding (docs/security.md, "Allowed hosts"): a page at http://attacker.example:<port> whose
 * name an attacker re-resolves to 127.0.0.1 makes the browser send `Host: attacker.example:<port>`
 * and no `Origin` on a GET. In protected mode a node answers only the names that are its own.
 */
const guarded = appPerFile();
const listed = appPerFile({
  env: { ALLOWED_HOSTS: 'cohort.internal, Dashboard.Example.COM', ADVERTISED_URL: 'http://cohort-7.example:9000' },
});

const portOf = (url: string) => new URL(url).port;

/** A socket.io websocket handshake with this Host: 101 when upgraded, else the refusal's status and body. */
function handshake(url: string, host: string): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://${target.host}/socket.io/?EIO=4&transport=websocket`, { headers: { host } });
    socket.on('open', () => {
      // Dropped, not closed: a close handshake the loaded node answers late keeps the connection, and
      // the app's close in afterAll waits for it (up to ws's 30 s close timeout).
      socket.terminate();
      resolve({ status: 101, body: '' });
    });
    socket.on('unexpected-response', (request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    socket.on('error', () => undefined);
  });
}

describe('a protected-mode node and the Host header', () => {
  it('refuses REST and /metrics with a forged Host, with 403, error 58 and a message naming ALLOWED_HOSTS', async () => {
    const port = portOf(guarded.url);
    for (const path of ['/v1/groups', '/metrics', '/v1/cluster', '/']) {
      const forged = await guarded.http().get(path).set('Host', `attacker.example:${port}`);
      expect({ path, status: forged.status }).toEqual({ path, status: 403 });
      expect(forged.body).toMatchObject({ statusCode: 403, errorCode: 58, error: 'SASL_AUTHENTICATION_FAILED' });
      expect(forged.body.message).toContain('attacker.example');
      expect(forged.body.message).toContain('ALLOWED_HOSTS');
    }
    // Other spellings of a foreign name are foreign too.
    for (const host of ['ATTACKER.example', 'localhost.attacker.example', '127.0.0.1.nip.io', 'evil.localhost']) {
      await guarded.http().get('/v1/groups').set('Host', host).expect(403);
    }
  });

  it('answers an IP address, localhost and its advertised host, on any port', async () => {
    const port = portOf(guarded.url);
    for (const host of [`localhost:${port}`, 'LOCALHOST', 'localhost.', `127.0.0.1:${port}`, '[::1]', '10.1.2.3:80']) {
      const answer = await guarded.http().get('/v1/groups').set('Host', host);
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
    }
    await guarded.http().get('/metrics').expect(200);
  });

  it('refuses a socket.io handshake with a forged Host before any session exists, naming ALLOWED_HOSTS', async () => {
    const port = portOf(guarded.url);
    const forged = await handshake(guarded.url, `attacker.example:${port}`);
    expect(forged.status).toBe(400);
    expect(forged.body).toContain('ALLOWED_HOSTS');
    expect(await handshake(guarded.url, `localhost:${port}`)).toEqual({ status: 101, body: '' });
  });

  it('answers the names ALLOWED_HOSTS lists and the advertised host, whatever their case, and still no other', async () => {
    await listed.http().get('/v1/groups').set('Host', 'Cohort-7.example:9000').expect(200);
    await listed.http().get('/v1/groups').set('Host', 'cohort.internal:8080').expect(200);
    await listed.http().get('/metrics').set('Host', 'dashboard.example.com').expect(200);
    await listed.http().get('/v1/groups').set('Host', 'attacker.example').expect(403);
    expect(await handshake(listed.url, 'cohort.internal')).toEqual({ status: 101, body: '' });
  });

  it('keeps the health probes open whatever the Host', async () => {
    await guarded.http().get('/health/live').set('Host', 'attacker.example').expect(200);
  });
});
