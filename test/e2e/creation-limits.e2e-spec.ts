import type { Socket } from 'socket.io-client';
import request from 'supertest';
import { allow } from '../support/acl-fixtures';
import { writeTokensFile } from '../support/auth-fixtures';
import { connect, request as emit } from '../support/socket-client';
import { startApp, type RunningApp, tempDataDir } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * MAX_GROUPS_PER_PRINCIPAL and MAX_TOPICS_PER_PRINCIPAL on one node with static tokens: a principal's
 * creation over the limit is answered with 89 THROTTLING_QUOTA_EXCEEDED naming the limit and changes
 * nothing; joining a group that exists is not a creation; a deleted group frees its slot; a restart
 * keeps the count.
 */
const TOKENS = { admin: 'admin-token', app: 'app-token' };
const dir = tempDataDir('cohort-limits-');
const data = tempDataDir('cohort-limits-data-');
let env: Record<string, string>;
let running: RunningApp;
let socket: Socket;

const http = () => request(running.url);
const as = (principal: keyof typeof TOKENS) => ({ Authorization: `Bearer ${TOKENS[principal]}` });
const join = (groupId: string) =>
  emit<{ errorCode: number; errorMessage?: string }>(socket, 'JoinGroup', {
    groupId,
    sessionTimeoutMs: 10_000,
    memberId: '',
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: { topics: ['orders'] } }],
  });
const commit = (groupId: string) =>
  emit<{ errorCode: number; errorMessage?: string; topics: { partitions: { errorCode: number }[] }[] }>(
    socket,
    'OffsetCommit',
    {
      groupId,
      generationId: -1,
      memberId: '',
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 7 }] }],
    },
  );
const stateOf = async (groupId: string) =>
  (await emit<{ groups: { groupState: string }[] }>(socket, 'DescribeGroups', { groups: [groupId] })).groups[0]
    .groupState;

async function start(): Promise<void> {
  running = await startApp(env);
  socket = await connect(running.url, { token: TOKENS.app });
}

beforeAll(async () => {
  const tokensFile = writeTokensFile(dir.dir, { 'User:admin': TOKENS.admin, 'User:app': TOKENS.app });
  env = {
    DATA_DIR: data.dir,
    AUTH_TOKENS_FILE: tokensFile,
    SUPER_USERS: 'User:admin',
    MAX_GROUPS_PER_PRINCIPAL: '2',
    MAX_TOPICS_PER_PRINCIPAL: '1',
  };
  await start();
  await http().post('/v1/topics').set(as('admin')).send({ name: 'orders', partitions: 1 }).expect(201);
  await http()
    .post('/v1/acls')
    .set(as('admin'))
    .send({
      acls: [
        allow('User:app', 'READ', 'GROUP', '*'),
        allow('User:app', 'DESCRIBE', 'GROUP', '*'),
        allow('User:app', 'READ', 'TOPIC', 'orders'),
        allow('User:app', 'CREATE', 'CLUSTER', 'kafka-cluster'),
      ],
    })
    .expect(201);
});

afterAll(async () => {
  socket?.disconnect();
  await running?.close();
  dir.remove();
  data.remove();
});

describe('MAX_GROUPS_PER_PRINCIPAL', () => {
  it('refuses a new group over the limit with 89, changing nothing, while existing groups stay joinable', async () => {
    // An admin's group (super users are not counted), and two groups User:app creates by committing.
    await http()
      .post('/v1/groups/shared/offsets')
      .set(as('admin'))
      .send({ topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1 }] }] })
      .expect(200);
    for (const groupId of ['app-1', 'app-2']) expect((await commit(groupId)).errorCode).toBe(0);

    const refused = await join('app-3');
    expect(refused.errorCode).toBe(89);
    expect(refused.errorMessage).toContain('MAX_GROUPS_PER_PRINCIPAL=2');
    expect(await stateOf('app-3')).toBe('Dead');
    const refusedCommit = await commit('app-3');
    expect([
      refusedCommit.errorCode,
      ...refusedCommit.topics.flatMap((t) => t.partitions.map((p) => p.errorCode)),
    ]).toEqual([89, 89]);
    expect(await stateOf('app-3')).toBe('Dead');

    // Joining groups that exist is no creation: its own, and one somebody else created.
    expect((await join('app-2')).errorCode).toBe(79); // MEMBER_ID_REQUIRED: the join goes on
    expect((await join('shared')).errorCode).toBe(79);
  });

  it('frees the slot of a deleted group', async () => {
    await http().delete('/v1/groups/app-1').set(as('admin')).expect(204);
    expect((await commit('app-3')).errorCode).toBe(0);
    expect((await join('app-4')).errorCode).toBe(89);
  });

  it('counts groups that REST creates by setting offsets (429, error 89), not a dry-run reset', async () => {
    const offsets = { topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 3 }] }] };
    const refused = await http().post('/v1/groups/app-5/offsets').set(as('app')).send(offsets).expect(429);
    expect(refused.body).toMatchObject({ errorCode: 89, error: 'THROTTLING_QUOTA_EXCEEDED' });
    await http()
      .post('/v1/groups/app-5/offsets/reset')
      .set(as('app'))
      .send({ topics: [{ name: 'orders' }], strategy: 'earliest', dryRun: false })
      .expect(429);
    expect(await stateOf('app-5')).toBe('Dead');
    await http()
      .post('/v1/groups/app-5/offsets/reset')
      .set(as('app'))
      .send({ topics: [{ name: 'orders' }], strategy: 'earliest' })
      .expect(200);
    await http().post('/v1/groups/app-2/offsets').set(as('app')).send(offsets).expect(200); // its own group: no creation
  });

  it('keeps the count across a restart', async () => {
    socket.disconnect();
    await running.close();
    await start();
    const refused = await join('app-4');
    expect(refused.errorCode).toBe(89);
    expect(await stateOf('app-4')).toBe('Dead');
  });

  it('counts a consumer group that a ConsumerGroupHeartbeat creates: over the limit it is answered 89 and not created', async () => {
    const heartbeat = (groupId: string) =>
      emit<{ errorCode: number; errorMessage?: string; memberId: string | null }>(socket, 'ConsumerGroupHeartbeat', {
        groupId,
        memberId: 'member-1',
        memberEpoch: 0,
        rebalanceTimeoutMs: 10_000,
        subscribedTopicNames: ['orders'],
        topicPartitions: [],
      });
    const refused = await heartbeat('app-consumer');
    expect(refused).toMatchObject({ errorCode: 89, memberId: null });
    expect(refused.errorMessage).toContain('MAX_GROUPS_PER_PRINCIPAL=2');
    const described = await emit<{ groups: { errorCode: number }[] }>(socket, 'ConsumerGroupDescribe', {
      groupIds: ['app-consumer'],
    });
    expect(described.groups[0].errorCode).toBe(69); // GROUP_ID_NOT_FOUND: nothing was created
    // A group that exists is joined as before: one User:app created, deleted to free a slot for a consumer group.
    await http().delete('/v1/groups/app-2').set(as('admin')).expect(204);
    expect((await heartbeat('app-consumer')).errorCode).toBe(0);
    expect((await join('app-5')).errorCode).toBe(89);
  });
});

describe('MAX_TOPICS_PER_PRINCIPAL', () => {
  it('answers POST /v1/topics over the limit with 429 and error 89, creating nothing', async () => {
    await http().post('/v1/topics').set(as('app')).send({ name: 'app-topic-1', partitions: 1 }).expect(201);
    const refused = await http()
      .post('/v1/topics')
      .set(as('app'))
      .send({ name: 'app-topic-2', partitions: 1 })
      .expect(429);
    expect(refused.body).toMatchObject({ errorCode: 89, error: 'THROTTLING_QUOTA_EXCEEDED' });
    expect(refused.body.message).toContain('MAX_TOPICS_PER_PRINCIPAL=1');
    await http().get('/v1/topics/app-topic-2').set(as('admin')).expect(404);
    // A topic that exists is not a creation: the usual 400, not the limit.
    await http().post('/v1/topics').set(as('app')).send({ name: 'app-topic-1', partitions: 1 }).expect(400);
  });
});
