import request from 'supertest';
import { io } from 'socket.io-client';
import { type RunningApp, startApp, tempDataDir } from '../support/test-app';
import { TestCertificates } from '../support/test-certificates';

// Real sockets, child processes and (some) clusters on a shared machine: bounded, but not by Jest's 5 s default.
jest.setTimeout(30_000);

// HTTPS and WSS on PORT from TLS_*; with TLS_CLIENT_AUTH=required the client certificate's CN is the principal.

const dir = tempDataDir('cohort-tls-');
const data = [tempDataDir(), tempDataDir()];
let certs: TestCertificates;
let ca: Buffer;
let alice: { cert: Buffer; key: Buffer };
let bob: { cert: Buffer; key: Buffer };
let tlsOnly: RunningApp;
let mutual: RunningApp;
const httpsUrl = (app: RunningApp) => app.url.replace(/^http:/, 'https:');

beforeAll(async () => {
  certs = TestCertificates.create(dir.dir);
  ca = certs.read('ca.crt');
  alice = certs.issue('alice', 'alice');
  bob = certs.issue('bob', 'bob');
  const tls = {
    TLS_CERT_FILE: certs.path('server.crt'),
    TLS_KEY_FILE: certs.path('server.key'),
    TLS_CA_FILE: certs.path('ca.crt'),
  };
  tlsOnly = await startApp({ DATA_DIR: data[0].dir, ...tls });
  mutual = await startApp({ DATA_DIR: data[1].dir, ...tls, TLS_CLIENT_AUTH: 'required', SUPER_USERS: 'User:alice' });
}, 60_000);

afterAll(async () => {
  await tlsOnly?.close();
  await mutual?.close();
  for (const d of [dir, ...data]) d.remove();
});

function wss(url: string, options: { cert?: Buffer; key?: Buffer } = {}) {
  const pem = {
    ca: ca.toString(),
    ...(options.cert ? { cert: options.cert.toString(), key: options.key?.toString() } : {}),
  };
  const socket = io(url, { transports: ['websocket'], reconnection: false, forceNew: true, ...pem });
  return new Promise<{ connected: boolean; socket: typeof socket; error?: string }>((resolve) => {
    socket.once('connect', () => resolve({ connected: true, socket }));
    socket.once('connect_error', (error) => {
      socket.close();
      resolve({ connected: false, socket, error: error.message });
    });
  });
}

describe('TLS', () => {
  it('serves HTTPS and WSS on PORT, verified against the test CA, and advertises an https URL', async () => {
    const response = await request(httpsUrl(tlsOnly)).get('/v1/groups').ca(ca);
    expect(response.status).toBe(200);
    const outcome = await wss(httpsUrl(tlsOnly));
    expect(outcome.connected).toBe(true);
    const found = (await outcome.socket.timeout(5000).emitWithAck('FindCoordinator', { key: 'g' })) as { url: string };
    expect(found.url).toMatch(/^https:\/\//);
    outcome.socket.close();
    await expect(request(tlsOnly.url).get('/v1/groups')).rejects.toThrow(); // plain HTTP on a TLS port
  });

  it('with TLS_CLIENT_AUTH=required, the certificate CN is the principal: User:alice (a super user) passes, User:bob is authenticated but not authorized', async () => {
    const asAlice = await request(httpsUrl(mutual)).get('/v1/cluster').ca(ca).cert(alice.cert).key(alice.key);
    expect(asAlice.status).toBe(200);
    const asBob = await request(httpsUrl(mutual)).get('/v1/cluster').ca(ca).cert(bob.cert).key(bob.key);
    expect(asBob.status).toBe(403);
    expect(asBob.body.errorCode).toBe(31);
    const aliceSocket = await wss(httpsUrl(mutual), alice);
    expect(aliceSocket.connected).toBe(true);
    const described = (await aliceSocket.socket.timeout(5000).emitWithAck('DescribeGroups', { groups: ['g'] })) as {
      groups: { errorCode: number }[];
    };
    expect(described.groups[0].errorCode).not.toBe(30);
    aliceSocket.socket.close();
    const bobSocket = await wss(httpsUrl(mutual), bob);
    expect(bobSocket.connected).toBe(true);
    const refused = (await bobSocket.socket.timeout(5000).emitWithAck('DescribeGroups', { groups: ['g'] })) as {
      groups: { errorCode: number }[];
    };
    expect(refused.groups[0].errorCode).toBe(30);
    bobSocket.socket.close();
  });

  it('refuses a client without a certificate at the TLS handshake', async () => {
    await expect(request(httpsUrl(mutual)).get('/v1/groups').ca(ca)).rejects.toThrow();
    expect((await wss(httpsUrl(mutual))).connected).toBe(false);
  });
});
