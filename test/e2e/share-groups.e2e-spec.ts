import type { Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { allow } from '../support/acl-fixtures';
import { request as emit, firstPush, nextPush } from '../support/socket-client';
import { tokenApp } from '../support/token-app';

jest.setTimeout(60_000);

/**
 * Share group membership (KIP-932) over real sockets on one embedded node with tokens on: members join
 * with ShareGroupHeartbeat and get every partition of their topic between them, shared once they
 * outnumber the partitions; a member that leaves moves its partitions to the others, who are told to
 * heartbeat now; the group survives a restart of the node; the ACL checks (READ GROUP, DESCRIBE TOPIC,
 * DESCRIBE GROUP) refuse who may not.
 */
const node = tokenApp('cohort-sg-', { admin: 'admin-token', app: 'app-token', nobody: 'nobody-token' });
const { socketOf, closeSockets } = node;

const heartbeat = (socket: Socket, payload: Partial<P.ShareGroupHeartbeatRequest>) =>
  emit(socket, 'ShareGroupHeartbeat', { groupId: 'sg-1', ...payload } as P.ShareGroupHeartbeatRequest);

interface Member {
  socket: Socket;
  memberId: string;
  epoch: number;
  owned: string[];
}

const partitionsIn = (answer: P.ShareGroupHeartbeatResponse): string[] =>
  (answer.assignment?.topicPartitions ?? []).flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`));

async function join(memberId: string): Promise<Member> {
  const socket = await socketOf('app');
  const joined = await heartbeat(socket, { memberId, memberEpoch: 0, subscribedTopicNames: ['jobs'] });
  expect(joined).toMatchObject({ errorCode: 0, memberId });
  return { socket, memberId, epoch: joined.memberEpoch, owned: partitionsIn(joined) };
}

/** A member heartbeats, as it does when told to or on its interval, and keeps what it is given. */
async function beat(member: Member): Promise<void> {
  const answer = await heartbeat(member.socket, { memberId: member.memberId, memberEpoch: member.epoch });
  expect(answer.errorCode).toBe(0);
  member.epoch = answer.memberEpoch;
  if (answer.assignment) member.owned = partitionsIn(answer);
}

beforeAll(async () => {
  await node.start();
  await node.createTopics([
    ['jobs', 3],
    ['secret', 2],
  ]);
  await node.grant([
    allow('User:app', 'READ', 'GROUP', 'sg-', 'PREFIXED'),
    allow('User:app', 'DESCRIBE', 'GROUP', 'sg-', 'PREFIXED'),
    allow('User:app', 'DESCRIBE', 'TOPIC', 'jobs'),
  ]);
});

afterAll(() => node.stop());

describe('share groups over real sockets', () => {
  it('two members split a 3-partition topic, a third shares it, a leaving member moves its partitions, and the group survives a restart', async () => {
    const a = await join('member-a');
    expect(a.owned.sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2']);
    // member-b's arrival changes member-a's target: member-a is told to heartbeat at once.
    const told = nextPush(a.socket, 'HeartbeatNow');
    const b = await join('member-b');
    expect(await told).toMatchObject({ groupId: 'sg-1', memberEpoch: a.epoch });
    await beat(a);
    expect(a.owned).toHaveLength(2);
    expect(b.owned).toHaveLength(1);
    expect([...a.owned, ...b.owned].sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2']);

    // Three members on three partitions: one each. A fourth would share; the third keeps what it has.
    const c = await join('member-c');
    await beat(a);
    await beat(b);
    expect([a, b, c].map((m) => m.owned.length)).toEqual([1, 1, 1]);
    expect([...a.owned, ...b.owned, ...c.owned].sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2']);
    const d = await join('member-d');
    expect(d.owned).toHaveLength(1);
    expect([...a.owned, ...b.owned, ...c.owned]).toContain(d.owned[0]);

    // member-d and member-c leave: their partitions go to the others, who are told to heartbeat.
    // Whichever of member-a and member-b gains a partition is told (at least one must gain member-c's).
    const toldAgain = firstPush([a.socket, b.socket], 'HeartbeatNow');
    expect(await heartbeat(d.socket, { memberId: d.memberId, memberEpoch: -1 })).toMatchObject({
      errorCode: 0,
      memberEpoch: -1,
    });
    expect(await heartbeat(c.socket, { memberId: c.memberId, memberEpoch: -1 })).toMatchObject({ errorCode: 0 });
    await toldAgain;
    await beat(a);
    await beat(b);
    expect([...a.owned, ...b.owned].sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2']);

    const admin = await socketOf('admin');
    const before = await emit(admin, 'ShareGroupDescribe', { groupIds: ['sg-1'] });
    expect(before.groups[0]).toMatchObject({ errorCode: 0, groupState: 'Stable', assignorName: 'simple' });
    expect(before.groups[0].members.map((m) => m.memberId).sort()).toEqual(['member-a', 'member-b']);

    closeSockets();
    await node.restart();
    const again = await socketOf('admin');
    const after = await emit(again, 'ShareGroupDescribe', { groupIds: ['sg-1'] });
    expect(after).toEqual(before);
    const listed = await emit(again, 'ListGroups', { typesFilter: ['share'] });
    expect(listed.groups).toEqual([
      { groupId: 'sg-1', protocolType: 'share', groupState: 'Stable', groupType: 'share' },
    ]);
    // The member carries on at its epoch on the restarted node.
    const resumed = await heartbeat(await socketOf('app'), { memberId: a.memberId, memberEpoch: a.epoch });
    expect(resumed).toMatchObject({ errorCode: 0, memberEpoch: a.epoch });
  });

  it('answers a bad heartbeat 42 and an unknown member 25, changing nothing', async () => {
    const app = await socketOf('app');
    expect(await heartbeat(app, { memberId: 'x', memberEpoch: 0 })).toMatchObject({
      errorCode: 42,
      errorName: 'INVALID_REQUEST',
    });
    expect(await heartbeat(app, { memberId: 'ghost', memberEpoch: 3 })).toMatchObject({ errorCode: 25 });
    const described = await emit(app, 'ShareGroupDescribe', { groupIds: ['sg-1'] });
    expect(described.groups[0].members.map((m) => m.memberId)).not.toContain('x');
  });

  it('a principal without READ on the group is refused with 30, one subscribing to a topic it may not describe with 29, and DESCRIBE GROUP guards the describe', async () => {
    const nobody = await socketOf('nobody');
    const refused = await heartbeat(nobody, { memberId: 'intruder', memberEpoch: 0, subscribedTopicNames: ['jobs'] });
    expect(refused).toMatchObject({ errorCode: 30, errorName: 'GROUP_AUTHORIZATION_FAILED', memberId: null });

    const app = await socketOf('app');
    const secret = await heartbeat(app, { memberId: 'curious', memberEpoch: 0, subscribedTopicNames: ['secret'] });
    expect(secret).toMatchObject({ errorCode: 29, errorName: 'TOPIC_AUTHORIZATION_FAILED', memberId: null });
    expect(secret.errorMessage).toContain('secret');

    const described = await emit(nobody, 'ShareGroupDescribe', { groupIds: ['sg-1'] });
    expect(described.groups).toEqual([expect.objectContaining({ groupId: 'sg-1', errorCode: 30, members: [] })]);

    // A group showing a topic the caller may not describe is answered 29 without its members.
    const admin = await socketOf('admin');
    const joined = await heartbeat(admin, {
      groupId: 'sg-secret',
      memberId: 'admin-member',
      memberEpoch: 0,
      subscribedTopicNames: ['secret'],
    });
    expect(joined.errorCode).toBe(0);
    const hidden = await emit(app, 'ShareGroupDescribe', { groupIds: ['sg-secret', 'sg-1'] });
    expect(hidden.groups.map((g) => [g.groupId, g.errorCode])).toEqual([
      ['sg-secret', 29],
      ['sg-1', 0],
    ]);
    expect(hidden.groups[0].members).toEqual([]);
  });
});
