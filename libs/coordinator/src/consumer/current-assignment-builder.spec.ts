import { ConsumerGroupError } from './consumer-errors';
import { type ConsumerGroupMember, newConsumerGroupMember } from './consumer-group-member';
import { CurrentAssignmentBuilder } from './current-assignment-builder';
import { MemberState } from './member-state';
import type { TopicPartitionList, TopicPartitions } from './topic-partitions';

// Kafka's CurrentAssignmentBuilderTest, case by case. Topics are named as Cohort names them; Kafka's
// metadata image there holds topic1 and topic2 (foo and bar in the regex cases), ten partitions each.

function parts(byTopic: Record<string, number[]>): TopicPartitions {
  return new Map(Object.entries(byTopic).map(([topic, ps]) => [topic, new Set(ps)]));
}

function owned(byTopic: Record<string, number[]>): TopicPartitionList[] {
  return Object.entries(byTopic).map(([topic, partitions]) => ({ topic, partitions }));
}

function member(fields: Partial<ConsumerGroupMember>): ConsumerGroupMember {
  return newConsumerGroupMember('member', { subscribedTopicNames: new Set(['topic1', 'topic2']), ...fields });
}

const existing = (names: string[]) => (topic: string) => names.includes(topic);

function builder(of: ConsumerGroupMember, topics = ['topic1', 'topic2']): CurrentAssignmentBuilder {
  return new CurrentAssignmentBuilder(of).withTopicExists(existing(topics));
}

describe('CurrentAssignmentBuilder (Kafka CurrentAssignmentBuilderTest)', () => {
  it('moves a stable member to the new epoch when its target is unchanged (testStableToStable)', () => {
    const m = member({
      state: MemberState.STABLE,
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }),
    });
    const updated = builder(m)
      .withTargetAssignment(11, parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }))
      .withCurrentPartitionEpoch(() => 10)
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.STABLE,
        memberEpoch: 11,
        previousMemberEpoch: 10,
        assignedPartitions: parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }),
      }),
    );
  });

  it('gives a stable member the free new partitions of its target at once (testStableToStableWithNewPartitions)', () => {
    const m = member({
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }),
    });
    const updated = builder(m)
      .withTargetAssignment(11, parts({ topic1: [1, 2, 3, 4], topic2: [4, 5, 6, 7] }))
      .withCurrentPartitionEpoch(() => -1)
      .build();
    expect(updated).toEqual(
      member({
        memberEpoch: 11,
        previousMemberEpoch: 10,
        assignedPartitions: parts({ topic1: [1, 2, 3, 4], topic2: [4, 5, 6, 7] }),
      }),
    );
  });

  it('asks a stable member to revoke first and holds back its new partitions (testStableToUnrevokedPartitions)', () => {
    const m = member({
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }),
    });
    const updated = builder(m)
      .withTargetAssignment(11, parts({ topic1: [2, 3, 4], topic2: [5, 6, 7] }))
      .withCurrentPartitionEpoch(() => -1)
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.UNREVOKED_PARTITIONS,
        memberEpoch: 10,
        previousMemberEpoch: 10,
        assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
        partitionsPendingRevocation: parts({ topic1: [1], topic2: [4] }),
      }),
    );
  });

  it('moves a stable member to the new epoch but withholds partitions another member still owns (testStableToUnreleasedPartitions)', () => {
    const m = member({
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }),
    });
    const updated = builder(m)
      .withTargetAssignment(11, parts({ topic1: [1, 2, 3, 4], topic2: [4, 5, 6, 7] }))
      .withCurrentPartitionEpoch(() => 10)
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.UNRELEASED_PARTITIONS,
        memberEpoch: 11,
        previousMemberEpoch: 10,
        assignedPartitions: parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }),
      }),
    );
  });

  it('does not wait for a revocation the member already made, and withholds what is still owned elsewhere (testStableToUnreleasedPartitionsWithOwnedPartitionsNotHavingRevokedPartitions)', () => {
    const m = member({
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }),
    });
    const updated = builder(m)
      .withTargetAssignment(11, parts({ topic1: [1, 2, 3], topic2: [4, 5, 7] }))
      .withCurrentPartitionEpoch((topic) => (topic === 'topic2' ? 10 : -1))
      .withOwnedTopicPartitions([])
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.UNRELEASED_PARTITIONS,
        memberEpoch: 11,
        previousMemberEpoch: 10,
        assignedPartitions: parts({ topic1: [1, 2, 3], topic2: [4, 5] }),
      }),
    );
  });

  it('makes a member stable at the target epoch once it stops reporting the revoked partitions (testUnrevokedPartitionsToStable)', () => {
    const m = member({
      state: MemberState.UNREVOKED_PARTITIONS,
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
      partitionsPendingRevocation: parts({ topic1: [1], topic2: [4] }),
    });
    const updated = builder(m)
      .withTargetAssignment(11, parts({ topic1: [2, 3], topic2: [5, 6] }))
      .withCurrentPartitionEpoch(() => -1)
      .withOwnedTopicPartitions(owned({ topic1: [2, 3], topic2: [5, 6] }))
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.STABLE,
        memberEpoch: 11,
        previousMemberEpoch: 10,
        assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
      }),
    );
  });

  it('keeps a member waiting while it does not report its partitions or still reports a revoked one (testRemainsInUnrevokedPartitions)', () => {
    const m = member({
      state: MemberState.UNREVOKED_PARTITIONS,
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
      partitionsPendingRevocation: parts({ topic1: [1], topic2: [4] }),
    });
    const b = builder(m)
      .withTargetAssignment(12, parts({ topic1: [3], topic2: [6] }))
      .withCurrentPartitionEpoch(() => -1);
    expect(b.withOwnedTopicPartitions(null).build()).toBe(m);
    expect(b.withOwnedTopicPartitions(owned({ topic1: [1, 2, 3], topic2: [5, 6] })).build()).toBe(m);
    expect(b.withOwnedTopicPartitions(owned({ topic1: [2, 3], topic2: [4, 5, 6] })).build()).toBe(m);
  });

  it.each([
    [10, 12, 11],
    // The member epoch must not advance past the target assignment epoch.
    [10, 10, 10],
  ])(
    'asks a member that revoked at epoch %i for the next revocation at the following epoch, never past the target (target %i → %i; testUnrevokedPartitionsToUnrevokedPartitions)',
    (memberEpoch, targetAssignmentEpoch, expectedMemberEpoch) => {
      const m = member({
        state: MemberState.UNREVOKED_PARTITIONS,
        memberEpoch,
        previousMemberEpoch: memberEpoch,
        assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
        partitionsPendingRevocation: parts({ topic1: [1], topic2: [4] }),
      });
      const updated = builder(m)
        .withTargetAssignment(targetAssignmentEpoch, parts({ topic1: [3], topic2: [6] }))
        .withCurrentPartitionEpoch(() => -1)
        .withOwnedTopicPartitions(owned({ topic1: [2, 3], topic2: [5, 6] }))
        .build();
      expect(updated).toEqual(
        member({
          state: MemberState.UNREVOKED_PARTITIONS,
          memberEpoch: expectedMemberEpoch,
          previousMemberEpoch: memberEpoch,
          assignedPartitions: parts({ topic1: [3], topic2: [6] }),
          partitionsPendingRevocation: parts({ topic1: [2], topic2: [5] }),
        }),
      );
    },
  );

  it('moves a member that revoked everything to unreleased partitions while its new ones are still owned (testUnrevokedPartitionsToUnreleasedPartitions)', () => {
    const m = member({
      state: MemberState.UNREVOKED_PARTITIONS,
      memberEpoch: 11,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
    });
    const updated = builder(m)
      .withTargetAssignment(11, parts({ topic1: [2, 3, 4], topic2: [5, 6, 7] }))
      .withCurrentPartitionEpoch(() => 10)
      .withOwnedTopicPartitions(owned({ topic1: [2, 3], topic2: [5, 6] }))
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.UNRELEASED_PARTITIONS,
        memberEpoch: 11,
        previousMemberEpoch: 11,
        assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
      }),
    );
  });

  it('gives a member back a partition it was revoking when the target returns it, since nobody else owns it (testUnrevokedPartitionsToStableWithReturnedPartitionsPendingRevocation)', () => {
    const m = member({
      state: MemberState.UNREVOKED_PARTITIONS,
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
      // Partition 4 is pending revocation by the member but is back in the latest target.
      partitionsPendingRevocation: parts({ topic1: [4] }),
    });
    const ownedByMember: Record<string, number[]> = { topic1: [2, 3, 4], topic2: [5, 6] };
    const updated = builder(m)
      .withTargetAssignment(12, parts({ topic1: [2, 3, 4], topic2: [5, 6, 7] }))
      .withCurrentPartitionEpoch((topic, p) => (ownedByMember[topic]?.includes(p) ? 10 : -1))
      .withOwnedTopicPartitions(owned({ topic1: [2, 3], topic2: [5, 6] }))
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.STABLE,
        memberEpoch: 12,
        previousMemberEpoch: 10,
        assignedPartitions: parts({ topic1: [2, 3, 4], topic2: [5, 6, 7] }),
      }),
    );
  });

  it('makes a member with unreleased partitions stable at the next epoch once the target no longer needs them (testUnreleasedPartitionsToStable)', () => {
    const m = member({
      state: MemberState.UNRELEASED_PARTITIONS,
      memberEpoch: 11,
      previousMemberEpoch: 11,
      assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
    });
    const updated = builder(m)
      .withTargetAssignment(12, parts({ topic1: [2, 3], topic2: [5, 6] }))
      .withCurrentPartitionEpoch(() => 10)
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.STABLE,
        memberEpoch: 12,
        previousMemberEpoch: 11,
        assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
      }),
    );
  });

  it('assigns a waiting member its partitions as soon as they are released (testUnreleasedPartitionsToStableWithNewPartitions)', () => {
    const m = member({
      state: MemberState.UNRELEASED_PARTITIONS,
      memberEpoch: 11,
      previousMemberEpoch: 11,
      assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
    });
    const updated = builder(m)
      .withTargetAssignment(11, parts({ topic1: [2, 3, 4], topic2: [5, 6, 7] }))
      .withCurrentPartitionEpoch(() => -1)
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.STABLE,
        memberEpoch: 11,
        previousMemberEpoch: 11,
        assignedPartitions: parts({ topic1: [2, 3, 4], topic2: [5, 6, 7] }),
      }),
    );
  });

  it('leaves a waiting member as it is while its partitions are still owned elsewhere (testUnreleasedPartitionsToUnreleasedPartitions)', () => {
    const m = member({
      state: MemberState.UNRELEASED_PARTITIONS,
      memberEpoch: 11,
      previousMemberEpoch: 11,
      assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
    });
    const updated = builder(m)
      .withTargetAssignment(11, parts({ topic1: [2, 3, 4], topic2: [5, 6, 7] }))
      .withCurrentPartitionEpoch(() => 10)
      .build();
    expect(updated).toEqual(m);
  });

  it('asks a waiting member to revoke when a newer target takes partitions away (testUnreleasedPartitionsToUnrevokedPartitions)', () => {
    const m = member({
      state: MemberState.UNRELEASED_PARTITIONS,
      memberEpoch: 11,
      previousMemberEpoch: 11,
      assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
    });
    const updated = builder(m)
      .withTargetAssignment(12, parts({ topic1: [3], topic2: [6] }))
      .withCurrentPartitionEpoch(() => 10)
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.UNREVOKED_PARTITIONS,
        memberEpoch: 11,
        previousMemberEpoch: 11,
        assignedPartitions: parts({ topic1: [3], topic2: [6] }),
        partitionsPendingRevocation: parts({ topic1: [2], topic2: [5] }),
      }),
    );
  });

  it('fences a member in an unknown state until it rejoins owning nothing, then reconciles it from scratch (testUnknownState)', () => {
    const m = member({
      state: MemberState.UNKNOWN,
      memberEpoch: 11,
      previousMemberEpoch: 11,
      assignedPartitions: parts({ topic1: [3], topic2: [6] }),
      partitionsPendingRevocation: parts({ topic1: [2], topic2: [5] }),
    });
    const fenced = (): unknown =>
      builder(m)
        .withTargetAssignment(12, parts({ topic1: [3], topic2: [6] }))
        .withCurrentPartitionEpoch(() => 10)
        .build();
    expect(fenced).toThrow(ConsumerGroupError);
    expect(fenced).toThrow(expect.objectContaining({ errorCode: 110, errorName: 'FENCED_MEMBER_EPOCH' }));

    const updated = builder(m)
      .withTargetAssignment(12, parts({ topic1: [3], topic2: [6] }))
      .withCurrentPartitionEpoch(() => 11)
      .withOwnedTopicPartitions([])
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.STABLE,
        memberEpoch: 12,
        previousMemberEpoch: 11,
        assignedPartitions: parts({ topic1: [3], topic2: [6] }),
      }),
    );
  });
});
