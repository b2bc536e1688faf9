import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import request from 'supertest';
import { appPerFile } from '../support/app-per-file';
import { signJwt, tryConnect, writeTokensFile } from '../support/auth-fixtures';
import { eventually } from '../support/group-member';
import { tempDataDir } from '../support/test-app';

// Real sockets, child processes and (some) clusters on a shared machine: bounded, but not by Jest's 5 s default.
jest.setTimeout(30_000);

const SECRET = 'an-hs256-secret-of-at-least-32-characters!';
const dir = tempDataDir('cohort-auth-');
const tokensFile = writeTokensFile(dir.dir, { 'User:billing': 'billing-token', 'User:ops': 'ops-token' });
const REFUSED = { errorCode: 58, errorName: 'SASL_AUTHENTICATION_FAILED' };

const app = appPerFile({
  env: {
    AUTH_TOKENS_FILE: tokensFile,
    AUTH_JWT_SECRET: SECRET,
    AUTH_JWT_ISSUER: 'https://issuer.example',
    AUTH_JWT_AUDIENCE: 'cohort',
    SUPER_USERS: 'User:billing;User:ops;User:alice;User:shortlived',
  },
});
afterAll(() => dir.remove());

const goodJwt = (claims: Parameters<typeof signJwt>[1] = {}) =>
  signJwt(SECRET, { iss: 'https://issuer.example', aud: 'cohort', ...claims });

describe('socket.io handshake authentication', () => {
  it('refuses a connection without a token, with a wrong token or a token of the wrong type, with error 58', async () => {
    for (const auth of [{}, { token: 'not-a-token' }, { token: 42 }, { token: ['billing-token'] }, { token: '' }]) {
      const outcome = await tryConnect(app.url, auth);
      expect(outcome).toMatchObject({ connected: false, data: REFUSED });
    }
  });

  it('accepts a static token and a valid JWT; the principal answers requests', async () => {
    for (const token of ['billing-token', await goodJwt()]) {
      const outcome = await tryConnect(app.url, { token });
      expect(outcome.connected).toBe(true);
      if (outcome.connected) {
        const answer = await outcome.socket.timeout(5000).emitWithAck('ListGroups', {});
        expect(answer).toMatchObject({ errorCode: 0 });
        outcome.socket.close();
      }
    }
  });

  it('refuses an expired JWT, a JWT not yet valid, of another issuer or audience, signed with another secret, or without exp', async () => {
    const now = Math.floor(Date.now() / 1000);
    const bad = [
      await goodJwt({ exp: now - 5 }),
      await goodJwt({ nbf: now + 3600 }),
      await goodJwt({ iss: 'https://elsewhere.example' }),
      await goodJwt({ aud: 'someone-else' }),
      await signJwt('another-secret-that-is-also-32-characters-long', { iss: 'https://issuer.example', aud: 'cohort' }),
    ];
    for (const token of bad)
      expect(await tryConnect(app.url, { token })).toMatchObject({ connected: false, data: REFUSED });
  });

  it('closes the socket of a JWT when it expires', async () => {
    const outcome = await tryConnect(app.url, {
      token: await goodJwt({ sub: 'shortlived', exp: Math.floor(Date.now() / 1000) + 2 }),
    });
    if (!outcome.connected) throw new Error(`refused: ${outcome.message}`);
    const reason = await new Promise<string>((resolve) => outcome.socket.once('disconnect', resolve));
    expect(reason).toBe('io server disconnect');
  });

  it('closes the open sockets of a revoked static token and refuses it from then on; other tokens keep working', async () => {
    const revoked = await tryConnect(app.url, { token: 'ops-token' });
    const kept = await tryConnect(app.url, { token: 'billing-token' });
    if (!revoked.connected || !kept.connected) throw new Error('setup: both tokens should connect');
    const closed = new Promise<string>((resolve) => revoked.socket.once('disconnect', resolve));
    writeTokensFile(dir.dir, { 'User:billing': 'billing-token' });
    expect(await closed).toBe('io server disconnect');
    expect(await tryConnect(app.url, { token: 'ops-token' })).toMatchObject({ connected: false, data: REFUSED });
    expect(kept.socket.connected).toBe(true);
    kept.socket.close();
    // A file that no longer parses keeps the last good tokens.
    writeFileSync(tokensFile, '{ not json');
    await new Promise((resolve) => setTimeout(resolve, 600)); // let the watcher see (and reject) it
    const still = await tryConnect(app.url, { token: 'billing-token' });
    expect(still.connected).toBe(true);
    if (still.connected) still.socket.close();
    writeTokensFile(dir.dir, { 'User:billing': 'billing-token', 'User:ops': 'ops-token' });
    await eventually(async () => {
      const again = await tryConnect(app.url, { token: 'ops-token' });
      if (again.connected) again.socket.close();
      return again.connected;
    }, 'the restored token to work again');
  });
});

describe('REST authentication', () => {
  it('answers 401 with error 58 without a token, with a wrong token or another scheme', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong' },
      { authorization: 'Basic YmlsbGluZzp4' },
      { authorization: 'Bearer' },
    ]) {
      const response = await app.http().get('/v1/topics').set(headers);
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({
        statusCode: 401,
        ...{ errorCode: 58, error: 'SASL_AUTHENTICATION_FAILED' },
      });
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('accepts a static token and a JWT; health probes need none', async () => {
    await app.http().get('/v1/topics').set('authorization', 'Bearer billing-token').expect(200);
    await app
      .http()
      .get('/v1/topics')
      .set('authorization', `bearer ${await goodJwt()}`)
      .expect(200);
    await app.http().get('/health/live').expect(200);
  });

  it('fuzzed credentials never crash the node and are refused with 58 / 401', async () => {
    const jwtish = fc
      .tuple(fc.base64String(), fc.base64String(), fc.base64String())
      .map((parts) => parts.join('.').replace(/[+/=]/g, '_'));
    const token = fc.oneof(
      fc.string({ maxLength: 200 }),
      jwtish,
      fc.constantFrom('ops-token ', ' billing-token', 'Billing-token'),
    );
    await fc.assert(
      fc.asyncProperty(token, fc.string({ maxLength: 40 }), async (value, scheme) => {
        const socket = await tryConnect(app.url, { token: value });
        if (socket.connected) socket.socket.close();
        expect(socket).toMatchObject({ connected: false, data: REFUSED });
        const header = `${scheme} ${value}`.replace(/[^\t\x20-\x7e]/g, '');
        const response = await request(app.url).get('/v1/groups').set('authorization', header);
        expect(response.status).toBe(401);
        expect(response.body.errorCode).toBe(58);
      }),
      { numRuns: 25 },
    );
    await app.http().get('/health/live').expect(200);
  }, 30_000);
});
