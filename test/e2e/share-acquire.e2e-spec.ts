import type { Socket } from 'socket.io-client';
import request from 'supertest';
import type * as P from '@cohort/protocol';
import { allow } from '../support/acl-fixtures';
import { writeTokensFile } from '../support/auth-fixtures';
import { connect, request as emit } from '../support/socket-client';
import { startApp, type RunningApp, tempDataDir } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * Share groups' data plane over real sockets on one embedded node with tokens on: ShareAcquire and
 * ShareAcknowledge are events of the protocol, checked against READ GROUP (30 for the whole request)
 * before the coordinator answers.
 */
const TOKENS = { admin: 'admin-token', app: 'app-token', nobody: 'nobody-token' };
const dir = tempDataDir('cohort-sa-');
const data = tempDataDir('cohort-sa-data-');
const env = {
  DATA_DIR: data.dir,
  AUTH_TOKENS_FILE: writeTokensFile(
    dir.dir,
    Object.fromEntries(Object.entries(TOKENS).map(([name, token]) => [`User:${name}`, token])),
  ),
  SUPER_USERS: 'User:admin',
};
let running: RunningApp;
const sockets: Socket[] = [];

const as = (principal: keyof typeof TOKENS) => ({ Authorization: `Bearer ${TOKENS[principal]}` });
async function socketOf(principal: keyof typeof TOKENS): Promise<Socket> {
  const socket = await connect(running.url, { token: TOKENS[principal] });
  sockets.push(socket);
  return socket;
}

const acquire = (socket: Socket, payload: Partial<P.ShareAcquireRequest>) =>
  emit(socket, 'ShareAcquire', { groupId: 'sg-1', memberId: 'worker-1', maxRecords: 10, ...payload });
const acknowledge = (socket: Socket, acknowledgements: P.ShareAcknowledgement[]) =>
  emit(socket, 'ShareAcknowledge', { groupId: 'sg-1', memberId: 'worker-1', acknowledgements });

beforeAll(async () => {
  running = await startApp(env);
  for (const [name, partitions] of [
    ['jobs', 2],
    ['secret', 1],
  ] as const)
    await request(running.url).post('/v1/topics').set(as('admin')).send({ name, partitions }).expect(201);
  await request(running.url)
    .post('/v1/acls')
    .set(as('admin'))
    .send({
      acls: [allow('User:app', 'READ', 'GROUP', 'sg-', 'PREFIXED'), allow('User:app', 'READ', 'TOPIC', 'jobs')],
    })
    .expect(201);
});

afterAll(async () => {
  for (const socket of sockets.splice(0)) socket.disconnect();
  await running?.close();
  dir.remove();
  data.remove();
});

describe('ShareAcquire and ShareAcknowledge over real sockets', () => {
  it('a principal without READ on the group is refused with 30 on both events', async () => {
    const nobody = await socketOf('nobody');
    expect(await acquire(nobody, {})).toMatchObject({
      errorCode: 30,
      errorName: 'GROUP_AUTHORIZATION_FAILED',
      partitions: [],
    });
    expect(await acknowledge(nobody, [])).toMatchObject({ errorCode: 30, partitions: [] });
  });

  it('a member of no share group is answered 69, and a malformed acknowledgement 42 naming the field', async () => {
    const app = await socketOf('app');
    expect(await acquire(app, {})).toMatchObject({ errorCode: 69, errorName: 'GROUP_ID_NOT_FOUND' });
    const bad = await acknowledge(app, [
      { topic: 'jobs', partition: 0, batches: [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [7] }] },
    ]);
    expect(bad).toMatchObject({ errorCode: 42 });
    expect(bad.errorMessage).toContain('acknowledgeTypes');
  });
});
