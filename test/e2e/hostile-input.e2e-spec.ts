import type { Socket } from 'socket.io-client';
import { eventually, settledTogether } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { appPerFile } from '../support/app-per-file';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(60_000);

/**
 * Malformed and hostile requests against the real coordinator: each gets its Kafka error code on the
 * ack, the socket stays connected, and the group they aim at does not change (docs/protocol.md; docs/guarantees.md).
 */
describe('hostile input (e2e)', () => {
  const app = appPerFile({ env: { MAX_PAYLOAD_BYTES: '65536' }, topics: { t: 2 } });
  const pool = app.members({ topics: ['t'] });
  let attacker: Socket;

  beforeEach(async () => {
    attacker = await connect(app.url);
  });
  afterEach(() => attacker.disconnect());

  async function stableVictim() {
    const victim = await pool.member('victim');
    victim.start();
    await eventually(() => settledTogether([victim]), 'the victim group settled');
    const snapshot = async () => {
      const group = (await app.http().get('/v1/groups/victim').expect(200)).body;
      const offsets = (await app.http().get('/v1/groups/victim/offsets').expect(200)).body;
      return { group, offsets };
    };
    return { victim, snapshot };
  }

  it('answers malformed payloads of every request with INVALID_REQUEST and changes nothing', async () => {
    const { victim, snapshot } = await stableVictim();
    expect((await victim.commit([{ topic: 't', partition: 0, offset: 3 }])).errorCode).toBe(0);
    const before = await snapshot();
    const g = { groupId: 'victim', generationId: victim.generationId, memberId: victim.memberId };
    const malformed: [string, unknown][] = [
      ['FindCoordinator', { key: 42 }],
      ['Metadata', {}],
      ['JoinGroup', { ...victim.joinRequest(), memberId: victim.memberId, protocols: 'range' }],
      ['JoinGroup', { ...victim.joinRequest(), sessionTimeoutMs: Number.MAX_SAFE_INTEGER }],
      ['SyncGroup', { ...g, assignments: [{ memberId: victim.memberId, assignment: undefined }] }],
      ['Heartbeat', { ...g, generationId: 'latest' }],
      ['LeaveGroup', { groupId: 'victim', members: [{ memberId: 17 }] }],
      ['OffsetCommit', { ...g, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: -5 }] }] }],
      ['OffsetCommit', { ...g, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1e300 }] }] }],
      ['OffsetFetch', { groupId: 'victim', topics: 'all' }],
      ['OffsetDelete', { groupId: 'victim', topics: [{ name: 't', partitions: [{ partitionIndex: '0' }] }] }],
      ['DescribeGroups', { groups: [null] }],
      ['ListGroups', { statesFilter: 'Stable' }],
      ['DeleteGroups', { groupsNames: 'victim' }],
    ];
    for (const [event, payload] of malformed) {
      const response = await emit(attacker, event, payload);
      expect({ event, errorCode: response.errorCode, errorName: response.errorName }).toEqual({
        event,
        errorCode: 42,
        errorName: 'INVALID_REQUEST',
      });
    }
    expect(attacker.connected).toBe(true);
    expect(await snapshot()).toEqual(before);
    expect((await victim.heartbeat()).errorCode).toBe(0);
  });

  it('answers an empty group id with INVALID_GROUP_ID', async () => {
    const join = {
      groupId: '',
      sessionTimeoutMs: 10_000,
      memberId: '',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: { topics: ['t'] } }],
    };
    expect(await emit(attacker, 'JoinGroup', join)).toMatchObject({ errorCode: 24, errorName: 'INVALID_GROUP_ID' });
    expect(
      await emit(attacker, 'SyncGroup', { groupId: '', generationId: 1, memberId: 'm', assignments: [] }),
    ).toMatchObject({ errorCode: 24 });
    expect(await emit(attacker, 'Heartbeat', { groupId: '', generationId: 1, memberId: 'm' })).toMatchObject({
      errorCode: 24,
    });
    expect(attacker.connected).toBe(true);
  });

  it('answers unknown members, generations and sessions with their Kafka codes and changes nothing', async () => {
    const { victim, snapshot } = await stableVictim();
    const before = await snapshot();
    const g = { groupId: 'victim', generationId: victim.generationId };
    const expectations: [string, unknown, number][] = [
      ['Heartbeat', { ...g, memberId: 'impostor' }, 25],
      ['SyncGroup', { ...g, memberId: 'impostor', assignments: [] }, 25],
      ['Heartbeat', { ...g, generationId: g.generationId + 100, memberId: victim.memberId }, 22],
      ['JoinGroup', { ...victim.joinRequest(), memberId: 'impostor' }, 25],
      ['JoinGroup', { ...victim.joinRequest(), memberId: '', sessionTimeoutMs: 10 }, 26],
      ['JoinGroup', { ...victim.joinRequest(), memberId: '', protocolType: 'connect' }, 23],
      ['JoinGroup', { ...victim.joinRequest(), memberId: 'impostor', groupId: 'no-such-group' }, 25],
      [
        'OffsetCommit',
        {
          ...g,
          memberId: 'impostor',
          topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1 }] }],
        },
        25,
      ],
    ];
    for (const [event, payload, code] of expectations) {
      const response = await emit<{ errorCode: number; topics?: { partitions: { errorCode: number }[] }[] }>(
        attacker,
        event,
        payload,
      );
      const got = response.errorCode !== 0 ? response.errorCode : response.topics?.[0]?.partitions[0]?.errorCode;
      expect({ event, payload, got }).toEqual({ event, payload, got: code });
    }
    const leave = await emit<{ members: { errorCode: number }[] }>(attacker, 'LeaveGroup', {
      groupId: 'victim',
      members: [{ memberId: 'impostor' }],
    });
    expect(leave.members[0].errorCode).toBe(25);
    expect(attacker.connected).toBe(true);
    expect(await snapshot()).toEqual(before);
  });

  it('survives a flood of requests over the payload limit from one socket while others are served', async () => {
    const { victim } = await stableVictim();
    const closed = new Promise<void>((resolve) => attacker.once('disconnect', () => resolve()));
    for (let i = 0; i < 5; i++)
      attacker.emit('OffsetCommit', {
        groupId: 'victim',
        generationId: 1,
        memberId: 'x',
        topics: [{ name: 'x'.repeat(70_000), partitions: [] }],
      });
    await closed;
    expect((await victim.heartbeat()).errorCode).toBe(0);
    await app.http().get('/health/live').expect(200);
  });
});
