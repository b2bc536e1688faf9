import { writeTokensFile, tryConnect } from '../support/auth-fixtures';
import { NetworkNamespace, probeScript } from '../support/network-namespace';
import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { createCohortApp } from '../../src/create-cohort-app';
import { TEST_ENV, tempDataDir } from '../support/test-app';

// Real sockets, child processes and (some) clusters on a shared machine: bounded, but not by Jest's 5 s default.
jest.setTimeout(60_000);

// Protected mode with a real non-loopback client: the node listens on every address of this network
// namespace; the client runs in another one, joined by a veth pair.

interface Probe {
  rest: { status: number; body: { errorCode?: number; message?: string } };
  socket: { connected: boolean; message?: string; data?: unknown };
  error?: string;
}

let ns: NetworkNamespace;
const dirs = [tempDataDir(), tempDataDir(), tempDataDir()];
const apps: INestApplication[] = [];
const portOf = (app: INestApplication) => (app.getHttpServer().address() as AddressInfo).port;

beforeAll(async () => {
  ns = NetworkNamespace.create();
  const tokens = writeTokensFile(dirs[2].dir, { 'User:remote': 'remote-token' });
  for (const [i, env] of [
    {},
    { PROTECTED_MODE: 'false' },
    { AUTH_TOKENS_FILE: tokens, SUPER_USERS: 'User:remote' },
  ].entries()) {
    const app = await createCohortApp({ ...TEST_ENV, HOST: '0.0.0.0', DATA_DIR: dirs[i].dir, ...env });
    await app.listen(0, '0.0.0.0'); // every address of this namespace, the veth end included
    apps.push(app);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  ns?.remove();
  for (const d of dirs) d.remove();
});

describe('protected mode (no authentication configured)', () => {
  it('refuses a client from another address on REST and socket.io, naming the variables that turn authentication on', async () => {
    const probe = await ns.node<Probe>(probeScript(`http://${ns.hostAddress}:${portOf(apps[0])}`));
    expect(probe.error).toBeUndefined();
    expect(probe.rest.status).toBe(403);
    expect(probe.rest.body.errorCode).toBe(58);
    expect(probe.rest.body.message).toContain(`protected mode`);
    expect(probe.rest.body.message).toContain(ns.clientAddress);
    for (const variable of ['AUTH_TOKENS_FILE', 'AUTH_JWT_SECRET', 'PROTECTED_MODE=false'])
      expect(probe.rest.body.message).toContain(variable);
    expect(probe.socket).toMatchObject({
      connected: false,
      data: { errorCode: 58, errorName: 'SASL_AUTHENTICATION_FAILED' },
    });
    expect(probe.socket.message).toContain('protected mode');
  });

  it('accepts loopback clients exactly as before', async () => {
    const response = await fetch(`http://127.0.0.1:${portOf(apps[0])}/v1/groups`);
    expect(response.status).toBe(200);
    const outcome = await tryConnect(`http://127.0.0.1:${portOf(apps[0])}`);
    expect(outcome.connected).toBe(true);
    if (outcome.connected) outcome.socket.close();
  });

  it('PROTECTED_MODE=false lets the far client in', async () => {
    const probe = await ns.node<Probe>(probeScript(`http://${ns.hostAddress}:${portOf(apps[1])}`));
    expect(probe.rest.status).toBe(200);
    expect(probe.socket.connected).toBe(true);
  });

  it('with authentication on, the far client gets in with a token and is refused without one', async () => {
    const url = `http://${ns.hostAddress}:${portOf(apps[2])}`;
    const withToken = await ns.node<Probe>(
      probeScript(url, { authorization: 'Bearer remote-token' }, { token: 'remote-token' }),
    );
    expect(withToken.rest.status).toBe(200);
    expect(withToken.socket.connected).toBe(true);
    const without = await ns.node<Probe>(probeScript(url));
    expect(without.rest.status).toBe(401);
    expect(without.socket).toMatchObject({ connected: false, data: { errorCode: 58 } });
  });
});
