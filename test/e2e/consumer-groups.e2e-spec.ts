import type { Socket } from 'socket.io-client';
import request from 'supertest';
import type * as P from '@cohort/protocol';
import { allow } from '../support/acl-fixtures';
import { request as emit, nextPush } from '../support/socket-client';
import { tokenApp } from '../support/token-app';

jest.setTimeout(60_000);

/**
 * Kafka 4's consumer group protocol over real sockets on one embedded node with tokens on: members
 * join with ConsumerGroupHeartbeat and reconcile to the coordinator's targets, a member that leaves
 * gives its partitions to the other, the group survives a restart of the node, and the ACL checks
 * (READ GROUP, DESCRIBE TOPIC) refuse who may not.
 */
const node = tokenApp('cohort-cg-', { admin: 'admin-token', app: 'app-token', nobody: 'nobody-token' });
const { as, socketOf, closeSockets } = node;

const heartbeat = (socket: Socket, payload: Partial<P.ConsumerGroupHeartbeatRequest>) =>
  emit(socket, 'ConsumerGroupHeartbeat', { groupId: 'cg-1', ...payload } as P.ConsumerGroupHeartbeatRequest);

interface Member {
  socket: Socket;
  memberId: string;
  epoch: number;
  owned: P.TopicPartitions[];
}

/** Heartbeats each member in turn, as a client would on its interval, until nothing changes. */
async function reconcile(members: Member[]): Promise<void> {
  for (let round = 0; round < 6; round++) {
    for (const m of members) {
      const answer = await heartbeat(m.socket, {
        memberId: m.memberId,
        memberEpoch: m.epoch,
        topicPartitions: m.owned,
      });
      expect(answer.errorCode).toBe(0);
      m.epoch = answer.memberEpoch;
      if (answer.assignment) m.owned = answer.assignment.topicPartitions;
    }
  }
}

const partitionsOf = (m: Member): string[] => m.owned.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`));

beforeAll(async () => {
  await node.start();
  await node.createTopics([
    ['orders', 4],
    ['secret', 2],
  ]);
  await node.grant([
    allow('User:app', 'READ', 'GROUP', 'cg-', 'PREFIXED'),
    allow('User:app', 'DESCRIBE', 'GROUP', 'cg-', 'PREFIXED'),
    allow('User:app', 'READ', 'TOPIC', 'orders'),
  ]);
});

afterAll(() => node.stop());

describe('consumer groups over real sockets', () => {
  it('two members get disjoint assignments covering the topic; when one leaves the other gets everything; the group survives a restart', async () => {
    const members: Member[] = [];
    let told: Promise<P.HeartbeatNowPush> | undefined;
    for (const memberId of ['member-a', 'member-b']) {
      // member-b's arrival changes member-a's target: member-a is told to heartbeat at once.
      if (members.length === 1) told = nextPush(members[0].socket, 'HeartbeatNow');
      const socket = await socketOf('app');
      const joined = await heartbeat(socket, {
        memberId,
        memberEpoch: 0,
        subscribedTopicNames: ['orders'],
        rebalanceTimeoutMs: 30_000,
        topicPartitions: [],
      });
      expect(joined).toMatchObject({ errorCode: 0, memberId });
      members.push({ socket, memberId, epoch: joined.memberEpoch, owned: joined.assignment?.topicPartitions ?? [] });
    }
    expect(await told).toMatchObject({ groupId: 'cg-1', memberEpoch: members[0].epoch });
    await reconcile(members);
    const [a, b] = members;
    expect(partitionsOf(a)).toHaveLength(2);
    expect(partitionsOf(b)).toHaveLength(2);
    expect([...partitionsOf(a), ...partitionsOf(b)].sort()).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);

    const left = await heartbeat(b.socket, { memberId: b.memberId, memberEpoch: -1 });
    expect(left).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    await reconcile([a]);
    expect(partitionsOf(a).sort()).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);

    const admin = await socketOf('admin');
    const before = await emit(admin, 'ConsumerGroupDescribe', { groupIds: ['cg-1'] });
    expect(before.groups[0]).toMatchObject({ errorCode: 0, groupState: 'Stable' });
    expect(before.groups[0].members.map((m) => m.memberId)).toEqual(['member-a']);

    closeSockets();
    await node.restart();
    const again = await socketOf('admin');
    const after = await emit(again, 'ConsumerGroupDescribe', { groupIds: ['cg-1'] });
    expect(after).toEqual(before);
    const listed = await emit(again, 'ListGroups', { typesFilter: ['consumer'] });
    expect(listed.groups).toEqual([
      { groupId: 'cg-1', protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' },
    ]);
    // The member carries on at its epoch on the restarted node.
    const resumed = await heartbeat(await socketOf('app'), { memberId: a.memberId, memberEpoch: a.epoch });
    expect(resumed).toMatchObject({ errorCode: 0, memberEpoch: a.epoch });
  });

  it('a member subscribing by regex gets the partitions of the matching topics, and of a matching topic created later', async () => {
    await request(node.url).post('/v1/topics').set(as('admin')).send({ name: 'events-eu', partitions: 2 }).expect(201);
    const socket = await socketOf('admin');
    const bad = await heartbeat(socket, {
      groupId: 'cg-regex',
      memberId: 'r',
      memberEpoch: 0,
      subscribedTopicRegex: '(',
      rebalanceTimeoutMs: 30_000,
      topicPartitions: [],
    });
    expect(bad).toMatchObject({ errorCode: 128, errorName: 'INVALID_REGULAR_EXPRESSION', memberId: null });

    const joined = await heartbeat(socket, {
      groupId: 'cg-regex',
      memberId: 'regex-member',
      memberEpoch: 0,
      subscribedTopicRegex: 'events-.*',
      rebalanceTimeoutMs: 30_000,
      topicPartitions: [],
    });
    expect(joined.errorCode).toBe(0);
    const member: Member = {
      socket,
      memberId: 'regex-member',
      epoch: joined.memberEpoch,
      owned: joined.assignment?.topicPartitions ?? [],
    };
    expect(partitionsOf(member).sort()).toEqual(['events-eu-0', 'events-eu-1']);

    // A new matching topic moves the group at once: the member is told to heartbeat and takes its partitions.
    const told = nextPush(socket, 'HeartbeatNow');
    await request(node.url).post('/v1/topics').set(as('admin')).send({ name: 'events-us', partitions: 1 }).expect(201);
    expect(await told).toMatchObject({ groupId: 'cg-regex' });
    const reconcileRegex = async () => {
      for (let round = 0; round < 3; round++) {
        const answer = await heartbeat(socket, {
          groupId: 'cg-regex',
          memberId: member.memberId,
          memberEpoch: member.epoch,
          topicPartitions: member.owned,
        });
        expect(answer.errorCode).toBe(0);
        member.epoch = answer.memberEpoch;
        if (answer.assignment) member.owned = answer.assignment.topicPartitions;
      }
    };
    await reconcileRegex();
    expect(partitionsOf(member).sort()).toEqual(['events-eu-0', 'events-eu-1', 'events-us-0']);
  });

  it('a principal without READ on the group is refused with 30, and one subscribing to a topic it may not describe with 29', async () => {
    const nobody = await socketOf('nobody');
    const refused = await heartbeat(nobody, {
      memberId: 'intruder',
      memberEpoch: 0,
      subscribedTopicNames: ['orders'],
    });
    expect(refused).toMatchObject({ errorCode: 30, errorName: 'GROUP_AUTHORIZATION_FAILED', memberId: null });

    const app = await socketOf('app');
    const secret = await heartbeat(app, { memberId: 'curious', memberEpoch: 0, subscribedTopicNames: ['secret'] });
    expect(secret).toMatchObject({ errorCode: 29, errorName: 'TOPIC_AUTHORIZATION_FAILED', memberId: null });
    expect(secret.errorMessage).toContain('secret');

    const described = await emit(nobody, 'ConsumerGroupDescribe', { groupIds: ['cg-1'] });
    expect(described.groups).toEqual([expect.objectContaining({ groupId: 'cg-1', errorCode: 30, members: [] })]);
  });

  it('ConsumerGroupDescribe hides a group that shows a topic the caller may not describe (29)', async () => {
    const admin = await socketOf('admin');
    const joined = await heartbeat(admin, {
      groupId: 'cg-secret',
      memberId: 'admin-member',
      memberEpoch: 0,
      subscribedTopicNames: ['secret'],
      rebalanceTimeoutMs: 30_000,
      topicPartitions: [],
    });
    expect(joined.errorCode).toBe(0);
    const app = await socketOf('app');
    const described = await emit(app, 'ConsumerGroupDescribe', { groupIds: ['cg-secret', 'cg-1'] });
    expect(described.groups.map((g) => [g.groupId, g.errorCode])).toEqual([
      ['cg-secret', 29],
      ['cg-1', 0],
    ]);
    expect(described.groups[0].members).toEqual([]);
    // REST (and so the CLI and the dashboard) answers the same: the group is refused, not shown.
    await node.grant([allow('User:app', 'DESCRIBE', 'GROUP', 'cg-secret')]);
    const refused = await request(node.url).get('/v1/groups/cg-secret').set(as('app'));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      errorCode: 29,
      error: 'TOPIC_AUTHORIZATION_FAILED',
      message: 'The group has described topic(s) that the client is not authorized to describe.',
    });
    expect(JSON.stringify(refused.body)).not.toContain('admin-member');
    const shown = await request(node.url).get('/v1/groups/cg-secret').set(as('admin')).expect(200);
    expect(shown.body.members.map((m: { memberId: string }) => m.memberId)).toEqual(['admin-member']);
    // Once app may describe the topic, it sees the group.
    await node.grant([allow('User:app', 'DESCRIBE', 'TOPIC', 'secret')]);
    await request(node.url).get('/v1/groups/cg-secret').set(as('app')).expect(200);
  });
});
