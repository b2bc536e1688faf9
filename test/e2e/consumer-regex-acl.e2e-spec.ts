import type { Socket } from 'socket.io-client';
import request from 'supertest';
import type * as P from '@cohort/protocol';
import { allow } from '../support/acl-fixtures';
import { request as emit, nextPush } from '../support/socket-client';
import { tokenApp } from '../support/token-app';

jest.setTimeout(60_000);

/**
 * A consumer-protocol member that is not a super user subscribes by pattern over real sockets with
 * tokens and ACLs on: it is given only the matched topics its principal may DESCRIBE, ConsumerGroupDescribe
 * shows it no other, and DESCRIBE granted on another matching topic sends it HeartbeatNow and makes
 * that topic appear; revoking it takes it away again.
 */
const node = tokenApp('cohort-regex-acl-', { admin: 'admin-token', app: 'app-token' });
const { as } = node;
const GROUP = 'rx-1';
let socket: Socket;

const heartbeat = (payload: Partial<P.ConsumerGroupHeartbeatRequest>) =>
  emit(socket, 'ConsumerGroupHeartbeat', { groupId: GROUP, ...payload } as P.ConsumerGroupHeartbeatRequest);

const member = { memberId: 'rx-member', epoch: 0, owned: [] as P.TopicPartitions[] };
const ownedTopics = (): string[] => [...new Set(member.owned.map((tp) => tp.topic))].sort();

/** Heartbeats on the member's behalf (as its interval would) until its owned topics are `expected`. */
async function heartbeatUntilOwns(expected: string[]): Promise<void> {
  for (let round = 0; round < 300; round++) {
    const answer = await heartbeat({
      memberId: member.memberId,
      memberEpoch: member.epoch,
      topicPartitions: member.owned,
    });
    expect(answer.errorCode).toBe(0);
    member.epoch = answer.memberEpoch;
    if (answer.assignment) member.owned = answer.assignment.topicPartitions;
    if (JSON.stringify(ownedTopics()) === JSON.stringify(expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the member owns ${ownedTopics().join(', ')}, not ${expected.join(', ')}`);
}

const acls = (operation: 'post' | 'delete', bindings: P.AclBinding[]) =>
  operation === 'post'
    ? request(node.url).post('/v1/acls').set(as('admin')).send({ acls: bindings }).expect(201)
    : request(node.url).delete('/v1/acls').set(as('admin')).send({ filters: bindings }).expect(200);

beforeAll(async () => {
  await node.start();
  await node.createTopics([
    ['metrics-eu', 2],
    ['metrics-us', 1],
    ['metrics-secret', 2],
  ]);
  await acls('post', [
    allow('User:app', 'READ', 'GROUP', 'rx-', 'PREFIXED'),
    allow('User:app', 'DESCRIBE', 'GROUP', 'rx-', 'PREFIXED'),
    allow('User:app', 'DESCRIBE', 'TOPIC', 'metrics-eu'),
  ]);
  socket = await node.socketOf('app');
});

afterAll(() => node.stop());

describe('regex subscriptions filtered by DESCRIBE TOPIC over real sockets', () => {
  it('a non-super-user member subscribing by pattern gets only the topics it may describe, and one granted later', async () => {
    const joined = await heartbeat({
      memberId: member.memberId,
      memberEpoch: 0,
      subscribedTopicRegex: 'metrics-.*',
      rebalanceTimeoutMs: 30_000,
      topicPartitions: [],
    });
    expect(joined.errorCode).toBe(0);
    member.epoch = joined.memberEpoch;
    member.owned = joined.assignment?.topicPartitions ?? [];
    expect(ownedTopics()).toEqual(['metrics-eu']);

    // ConsumerGroupDescribe shows the member nothing else (the caller may describe all it shows).
    const described = await emit(socket, 'ConsumerGroupDescribe', { groupIds: [GROUP] });
    expect(described.groups[0].errorCode).toBe(0);
    const shown = described.groups[0].members.flatMap((m) => [
      ...m.assignment.topicPartitions.map((tp) => tp.topic),
      ...m.targetAssignment.topicPartitions.map((tp) => tp.topic),
    ]);
    expect([...new Set(shown)]).toEqual(['metrics-eu']);

    // DESCRIBE granted on another matching topic: the member is told to heartbeat now, and it appears.
    const grant = allow('User:app', 'DESCRIBE', 'TOPIC', 'metrics-us');
    const told = nextPush(socket, 'HeartbeatNow');
    await acls('post', [grant]);
    expect(await told).toMatchObject({ groupId: GROUP, reason: 'topic access changed' });
    await heartbeatUntilOwns(['metrics-eu', 'metrics-us']);

    // And goes when it is revoked; metrics-secret never appeared.
    await acls('delete', [grant]);
    await heartbeatUntilOwns(['metrics-eu']);
  });

  it('a name the principal may not describe is still refused with 29', async () => {
    const refused = await heartbeat({
      memberId: 'rx-other',
      memberEpoch: 0,
      subscribedTopicNames: ['metrics-secret'],
      rebalanceTimeoutMs: 30_000,
      topicPartitions: [],
    });
    expect(refused).toMatchObject({ errorCode: 29, errorName: 'TOPIC_AUTHORIZATION_FAILED', memberId: null });
    expect(refused.errorMessage).toContain('metrics-secret');
  });
});
