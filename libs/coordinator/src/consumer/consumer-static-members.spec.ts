import { G, parts, join, setup, twoMemberGroup } from '../../testing/consumer-heartbeat-fixtures';
import { memberTombstones } from './consumer-group-records';
import { currentAssignmentRecord, memberSubscriptionRecord, targetAssignmentRecord } from './consumer-records';

// Kafka's GroupMetadataManagerTest static member cases, on the virtual-clock harness. Topics
// are named; Kafka's subscription metadata record is the metadata hash of the epoch record here.

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

  // Kafka's testShouldThrownUnknownMemberIdExceptionWhenUnknownStaticMemberJoins,
  // testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdJoins,
  // testShouldThrowUnknownMemberIdExceptionWhenUnknownStaticMemberLeaves and
  // testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdLeaves.
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
