import { request as httpRequest } from 'node:http';
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

/** A polling handshake and a websocket upgrade with this Host: their HTTP statuses. */
async function handshakeStatuses(url: string, host: string): Promise<{ polling: number; websocket: number }> {
  const target = new URL(url);
  const polling = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: '/socket.io/?EIO=4&transport=polling', headers: { host } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
  const websocket = await new Promise<number>((resolve) => {
    const socket = new WebSocket(`ws://${target.host}/socket.io/?EIO=4&transport=websocket`, { headers: { host } });
    socket.on('open', () => {
      socket.close();
      resolve(101);
    });
    socket.on('unexpected-response', (_request, response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    socket.on('error', () => undefined);
  });
  return { polling, websocket };
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

  it('refuses a socket.io handshake with a forged Host on both transports', async () => {
    const port = portOf(guarded.url);
    expect(await handshakeStatuses(guarded.url, `attacker.example:${port}`)).toEqual({ polling: 403, websocket: 400 });
    expect(await handshakeStatuses(guarded.url, `localhost:${port}`)).toEqual({ polling: 200, websocket: 101 });
  });

  it('answers the names ALLOWED_HOSTS lists and the advertised host, whatever their case, and still no other', async () => {
    await listed.http().get('/v1/groups').set('Host', 'Cohort-7.example:9000').expect(200);
    await listed.http().get('/v1/groups').set('Host', 'cohort.internal:8080').expect(200);
    await listed.http().get('/metrics').set('Host', 'dashboard.example.com').expect(200);
    await listed.http().get('/v1/groups').set('Host', 'attacker.example').expect(403);
    expect(await handshakeStatuses(listed.url, 'cohort.internal')).toEqual({ polling: 200, websocket: 101 });
  });

  it('keeps the health probes open whatever the Host', async () => {
    await guarded.http().get('/health/live').set('Host', 'attacker.example').expect(200);
  });
});
