import type { Socket } from 'socket.io-client';
import { eventually, type GroupMember, settledTogether } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { appPerFile } from '../support/app-per-file';
import { captureErrorLogs } from '../support/error-log-capture';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(60_000);

/** `depth` levels of `{ a: … }` around 1: valid JSON that recursive code (class-transformer) cannot walk. */
function nestedObject(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

function nestedArray(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/**
 * Input of any shape gets its Kafka error and changes nothing (README, "socket.io quick start"): payloads
 * nested thousands of levels deep, consumer subscriptions and assignments that are not, and events no
 * handler has.
 */
describe('hostile shapes (e2e)', () => {
  const app = appPerFile({ topics: { t: 2 } });
  const pool = app.members({ topics: ['t'] });
  const errors = captureErrorLogs();
  let attacker: Socket;

  beforeEach(async () => {
    attacker = await connect(app.url);
  });
  afterEach(() => attacker.disconnect());

  async function snapshot(groupId: string): Promise<unknown> {
    const group = (await app.http().get(`/v1/groups/${groupId}`).expect(200)).body;
    const offsets = (await app.http().get(`/v1/groups/${groupId}/offsets`).expect(200)).body;
    return { group, offsets };
  }

  async function stable(groupId: string): Promise<GroupMember> {
    const member = await pool.member(groupId);
    member.start();
    await eventually(() => settledTogether([member]), `${groupId} settled`);
    await member.stop();
    return member;
  }

  it('answers a socket payload nested 3,000 levels deep with INVALID_REQUEST, before anything walks it, and logs no error', async () => {
    const member = await stable('deep');
    const before = await snapshot('deep');
    const g = { groupId: 'deep', generationId: member.generationId, memberId: member.memberId };
    const cases: [string, unknown][] = [
      ['FindCoordinator', { key: nestedObject(3_000) }],
      ['Metadata', { topics: nestedArray(3_000) }],
      ['Heartbeat', { ...g, groupInstanceId: nestedObject(3_000) }],
      [
        'JoinGroup',
        {
          ...member.joinRequest(),
          protocols: [{ name: 'range', metadata: { topics: ['t'], userData: nestedObject(3_000) } }],
        },
      ],
      ['SyncGroup', { ...g, assignments: [{ memberId: member.memberId, assignment: nestedArray(3_000) }] }],
      ['OffsetCommit', { ...g, topics: nestedArray(3_000) }],
      ['OffsetFetch', { groupId: 'deep', topics: [{ name: 't', partitionIndexes: nestedArray(3_000) }] }],
      ['DescribeGroups', { groups: nestedArray(3_000) }],
      ['ListGroups', nestedObject(3_000)],
      ['DeleteGroups', { groupsNames: nestedArray(3_000) }],
    ];
    for (const [event, payload] of cases) {
      const response = await emit(attacker, event, payload);
      expect({ event, errorCode: response.errorCode, errorName: response.errorName }).toEqual({
        event,
        errorCode: 42,
        errorName: 'INVALID_REQUEST',
      });
      expect(response.errorMessage).toMatch(/nested deeper than \d+ levels/);
    }
    expect(attacker.connected).toBe(true);
    expect(await snapshot('deep')).toEqual(before);
    expect(errors.lines()).toEqual([]);
  });

  it('answers REST bodies nested 3,000 levels deep with 400 INVALID_REQUEST and logs no error', async () => {
    const topic = await app
      .http()
      .post('/v1/topics')
      .send({ name: 'deep-topic', partitions: nestedObject(3_000) })
      .expect(400);
    expect(topic.body).toMatchObject({ statusCode: 400, errorCode: 42, error: 'INVALID_REQUEST' });
    expect(topic.body.message).toMatch(/nested deeper than \d+ levels/);
    await app.http().get('/v1/topics/deep-topic').expect(404);
    const members = await app
      .http()
      .post('/v1/assignors/range/assign')
      .send({ partitionsPerTopic: { t: 2 }, members: nestedArray(3_000) })
      .expect(400);
    expect(members.body).toMatchObject({ statusCode: 400, errorCode: 42, error: 'INVALID_REQUEST' });
    const userData = {
      partitionsPerTopic: { t: 2 },
      members: [{ memberId: 'm', topics: ['t'], userData: nestedObject(3_000) }],
    };
    expect((await app.http().post('/v1/assignors/range/assign').send(userData).expect(400)).body.errorCode).toBe(42);
    // Shallow input still works on both routes.
    await app
      .http()
      .post('/v1/assignors/range/assign')
      .send({ partitionsPerTopic: { t: 2 }, members: [{ memberId: 'm', topics: ['t'], userData: nestedObject(10) }] })
      .expect(200);
    expect(errors.lines()).toEqual([]);
  });

  it('refuses a consumer JoinGroup whose metadata is not a subscription, naming the field, and the group does not move', async () => {
    const member = await stable('subs');
    const before = await snapshot('subs');
    const bad: [unknown, string][] = [
      [true, 'protocols[0].metadata'],
      [5, 'protocols[0].metadata'],
      ['x', 'protocols[0].metadata'],
      [[], 'protocols[0].metadata'],
      [{}, 'protocols[0].metadata.topics'],
      [{ topics: 5 }, 'protocols[0].metadata.topics'],
      [{ topics: 't' }, 'protocols[0].metadata.topics'],
      [{ topics: [7] }, 'protocols[0].metadata.topics[0]'],
      [{ topics: null }, 'protocols[0].metadata.topics'],
      [{ topics: [null] }, 'protocols[0].metadata.topics[0]'],
      [{ topics: ['t'], ownedPartitions: 5 }, 'protocols[0].metadata.ownedPartitions'],
      [
        { topics: ['t'], ownedPartitions: [{ topic: 't', partitions: ['0'] }] },
        'protocols[0].metadata.ownedPartitions[0].partitions[0]',
      ],
      [
        { topics: ['t'], ownedPartitions: [{ topic: 7, partitions: [0] }] },
        'protocols[0].metadata.ownedPartitions[0].topic',
      ],
      [{ topics: ['t'], generationId: 'one' }, 'protocols[0].metadata.generationId'],
      [{ topics: ['t'], rackId: 9 }, 'protocols[0].metadata.rackId'],
    ];
    for (const [metadata, field] of bad) {
      const response = await emit(attacker, 'JoinGroup', {
        ...member.joinRequest(),
        protocols: [{ name: 'range', metadata }],
      });
      expect({ metadata, errorCode: response.errorCode }).toEqual({ metadata, errorCode: 42 });
      expect(response.errorMessage).toContain(field);
    }
    for (const serverAssignor of ['range', null]) {
      const fresh = await emit(attacker, 'JoinGroup', {
        ...member.joinRequest(),
        groupId: 'subs-new',
        memberId: '',
        serverAssignor,
        protocols: [{ name: 'range', metadata: 7 }],
      });
      expect(fresh).toMatchObject({ errorCode: 42, errorName: 'INVALID_REQUEST' });
    }
    expect(await snapshot('subs')).toEqual(before);
    await app.http().get('/v1/groups/subs-new').expect(404);
  });

  it("refuses a consumer leader's SyncGroup whose assignments are not assignments; the group stays CompletingRebalance", async () => {
    const a = await pool.member('assign');
    const b = await pool.member('assign');
    const [joinedA, joinedB] = await Promise.all([a.join(), b.join()]);
    expect([joinedA.errorCode, joinedB.errorCode]).toEqual([0, 0]);
    const leader = joinedA.leader === a.memberId ? a : b;
    const follower = leader === a ? b : a;
    const followerSync = emit(
      follower.socket,
      'SyncGroup',
      { groupId: 'assign', generationId: follower.generationId, memberId: follower.memberId, assignments: [] },
      30_000,
    );
    const bad: unknown[] = [
      5,
      [],
      {},
      'x',
      { partitions: 5 },
      { partitions: null },
      { partitions: 'x' },
      { partitions: {} },
      { partitions: [5] },
      { partitions: [{ topic: 't', partitions: [-1] }] },
      { partitions: [{ topic: 't', partitions: ['0'] }] },
      { partitions: [{ topic: 't' }] },
      { partitions: [{ partitions: [0] }] },
    ];
    for (const assignment of bad) {
      const response = await emit(leader.socket, 'SyncGroup', {
        groupId: 'assign',
        generationId: leader.generationId,
        memberId: leader.memberId,
        assignments: [{ memberId: follower.memberId, assignment }],
      });
      expect({ assignment, errorCode: response.errorCode }).toEqual({ assignment, errorCode: 42 });
      expect(response.errorMessage).toContain('assignments[0].assignment');
      expect((await app.http().get('/v1/groups/assign').expect(200)).body.state).toBe('CompletingRebalance');
    }
    // The leader can still complete the rebalance with a real assignment, and the follower gets it.
    const good = { partitions: [{ topic: 't', partitions: [0, 1] }] };
    const synced = await emit(leader.socket, 'SyncGroup', {
      groupId: 'assign',
      generationId: leader.generationId,
      memberId: leader.memberId,
      assignments: [{ memberId: follower.memberId, assignment: good }],
    });
    expect(synced.errorCode).toBe(0);
    expect(await followerSync).toMatchObject({ errorCode: 0, assignment: good });
  });

  it.each([
    'Foo',
    'joingroup',
    'JoinGroup ',
    'ApiVersions',
    'toString',
    '__proto__',
    'constructor',
    'hasOwnProperty',
    '',
    'RebalanceInProgress',
  ])('answers the unknown event %j with INVALID_REQUEST naming it', async (event) => {
    const response = await emit(attacker, event, { groupId: 'x' });
    expect(response).toEqual({
      errorCode: 42,
      errorName: 'INVALID_REQUEST',
      errorMessage: `unknown event ${JSON.stringify(event)}`,
    });
    expect(await emit(attacker, event)).toMatchObject({ errorCode: 42 });
    expect(attacker.connected).toBe(true);
  });
});
