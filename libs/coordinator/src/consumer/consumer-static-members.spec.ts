import {
  ConsumerGroupHarness,
  DEFAULT_CLIENT_HOST,
  DEFAULT_CLIENT_ID,
  MockConsumerAssignor,
} from '@cohort/coordinator/testing';
import { newConsumerGroupMember, type ConsumerGroupMember } from './consumer-group-member';
import { memberTombstones } from './consumer-group-records';
import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';
import { currentAssignmentRecord, memberSubscriptionRecord, targetAssignmentRecord } from './consumer-records';
import { MemberState } from './member-state';
import type { TopicPartitions } from './topic-partitions';

// Kafka's GroupMetadataManagerTest static member cases, on the virtual-clock harness. Topics
// are named; Kafka's subscription metadata record is the metadata hash of the epoch record here.

const G = 'fooup';
const TOPICS = { foo: 6, bar: 3 };

function parts(byTopic: Record<string, number[]>): TopicPartitions {
  return new Map(Object.entries(byTopic).map(([topic, ps]) => [topic, new Set(ps)]));
}

function member(memberId: string, fields: Partial<ConsumerGroupMember>): ConsumerGroupMember {
  return newConsumerGroupMember(memberId, {
    state: MemberState.STABLE,
    clientId: DEFAULT_CLIENT_ID,
    clientHost: DEFAULT_CLIENT_HOST,
    subscribedTopicNames: new Set(['foo', 'bar']),
    serverAssignorName: 'range',
    ...fields,
  });
}

function join(memberId: string, extra: Partial<ConsumerGroupHeartbeatRequest> = {}): ConsumerGroupHeartbeatRequest {
  return {
    groupId: G,
    memberId,
    memberEpoch: 0,
    rebalanceTimeoutMs: 5000,
    subscribedTopicNames: ['foo', 'bar'],
    serverAssignor: 'range',
    topicPartitions: [],
    ...extra,
  };
}

function setup(topics: Record<string, number> = TOPICS) {
  const assignor = new MockConsumerAssignor('range');
  const h = new ConsumerGroupHarness({ assignors: [assignor], topics });
  return { h, assignor, now: h.clock.now() };
}

/** A group of two stable members at epoch 10 sharing foo and bar (Kafka's fixture in several cases). */
function twoMemberGroup(
  h: ConsumerGroupHarness,
  fields: { m1?: Partial<ConsumerGroupMember>; m2?: Partial<ConsumerGroupMember> } = {},
) {
  const m1 = member('m1', {
    memberEpoch: 10,
    previousMemberEpoch: 9,
    rebalanceTimeoutMs: 5000,
    assignedPartitions: parts({ foo: [0, 1, 2], bar: [0, 1] }),
    ...fields.m1,
  });
  const m2 = member('m2', {
    memberEpoch: 10,
    previousMemberEpoch: 9,
    rebalanceTimeoutMs: 5000,
    assignedPartitions: parts({ foo: [3, 4, 5], bar: [2] }),
    ...fields.m2,
  });
  h.withGroup(G, 10, [m1, m2], { m1: m1.assignedPartitions, m2: m2.assignedPartitions }, 10);
  return { m1, m2 };
}

describe('ConsumerGroupHeartbeat of static members (Kafka GroupMetadataManagerTest)', () => {
  it('keeps a static member that leaves with -2 in place and gives its assignment back to it under a new id (testStaticMemberGetsBackAssignmentUponRejoin)', () => {
    const { h, now } = setup();
    const { m2 } = twoMemberGroup(h, { m1: { instanceId: 'i1' }, m2: { instanceId: 'i2' } });
    const away = h.heartbeat({
      groupId: G,
      memberId: 'm2',
      instanceId: 'i2',
      memberEpoch: -2,
      subscribedTopicNames: ['foo', 'bar'],
      topicPartitions: [],
    });
    expect(away.response).toEqual({
      errorCode: 0,
      memberId: 'm2',
      memberEpoch: -2,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    expect(away.records).toEqual([currentAssignmentRecord(G, { ...m2, memberEpoch: -2 }, now)]);
    expect(h.manager.group(G)!.groupEpoch).toBe(10);

    const rejoin = h.heartbeat(join('m2-reload', { instanceId: 'i2' }));
    expect(rejoin.response).toEqual({
      errorCode: 0,
      memberId: 'm2-reload',
      memberEpoch: 10,
      heartbeatIntervalMs: 5000,
      assignment: {
        topicPartitions: [
          { topic: 'bar', partitions: [2] },
          { topic: 'foo', partitions: [3, 4, 5] },
        ],
      },
    });
    const copied = { ...m2, memberId: 'm2-reload', memberEpoch: 0, previousMemberEpoch: 0 };
    expect(rejoin.records).toEqual([
      ...memberTombstones(G, 'm2', now),
      memberSubscriptionRecord(G, copied, now),
      targetAssignmentRecord(G, 'm2-reload', parts({ foo: [3, 4, 5], bar: [2] }), now),
      currentAssignmentRecord(G, copied, now),
      currentAssignmentRecord(G, { ...copied, memberEpoch: 10, previousMemberEpoch: 0 }, now),
    ]);
    // Nobody else moved: the group epoch is unchanged and the group is stable again.
    expect(h.manager.group(G)!.groupEpoch).toBe(10);
    expect(h.manager.group(G)!.state).toBe('Stable');
    expect(h.hasSessionTimeout(G, 'm2')).toBe(false);
  });

  it('refuses a static member whose instance id is still held by a live member with UNRELEASED_INSTANCE_ID (testShouldThrownUnreleasedInstanceIdExceptionWhenNewMemberJoinsWithInUseInstanceId)', () => {
    const { h } = setup();
    twoMemberGroup(h, { m1: { instanceId: 'i1' } });
    expect(h.heartbeat(join('m3', { instanceId: 'i1' })).response).toMatchObject({
      errorCode: 111,
      errorName: 'UNRELEASED_INSTANCE_ID',
    });
  });

  it('answers UNKNOWN_MEMBER_ID to an unknown static member and FENCED_INSTANCE_ID to the wrong member id for an instance, joining or leaving', () => {
    const { h } = setup();
    twoMemberGroup(h, { m1: { instanceId: 'i1' } });
    expect(h.heartbeat({ groupId: G, memberId: 'm1', instanceId: 'unknown', memberEpoch: 10 }).response.errorCode).toBe(
      25,
    );
    expect(h.heartbeat({ groupId: G, memberId: 'other', instanceId: 'i1', memberEpoch: 10 }).response.errorCode).toBe(
      82,
    );
    expect(h.heartbeat({ groupId: G, memberId: 'm1', instanceId: 'unknown', memberEpoch: -2 }).response.errorCode).toBe(
      25,
    );
    expect(h.heartbeat({ groupId: G, memberId: 'other', instanceId: 'i1', memberEpoch: -2 }).response.errorCode).toBe(
      82,
    );
  });
});
