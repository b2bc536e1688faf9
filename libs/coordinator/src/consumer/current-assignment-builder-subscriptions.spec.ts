import { type ConsumerGroupMember, newConsumerGroupMember } from './consumer-group-member';
import { CurrentAssignmentBuilder } from './current-assignment-builder';
import { MemberState } from './member-state';
import type { TopicPartitionList, TopicPartitions } from './topic-partitions';

// Kafka's CurrentAssignmentBuilderTest, the cases of subscription changes and regular expressions. Topics are named as Cohort names them; Kafka's
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

describe('CurrentAssignmentBuilder when subscriptions change (Kafka CurrentAssignmentBuilderTest)', () => {
  it.each([
    // When advancing to a new target the assignment always takes the subscription into account.
    [10, 11, 11, false],
    [10, 11, 11, true],
    [10, 10, 10, true],
  ])(
    'drops the partitions of a topic the member no longer subscribes to and that it already gave up (epoch %i, target %i → %i, subscription changed: %s; testStableToStableWithAssignmentTopicsNoLongerInSubscription)',
    (memberEpoch, targetAssignmentEpoch, expectedMemberEpoch, hasSubscriptionChanged) => {
      const m = member({
        memberEpoch,
        previousMemberEpoch: memberEpoch,
        subscribedTopicNames: new Set(['topic2']),
        assignedPartitions: parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }),
      });
      const updated = builder(m)
        .withTargetAssignment(targetAssignmentEpoch, parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }))
        .withHasSubscriptionChanged(hasSubscriptionChanged)
        .withCurrentPartitionEpoch(() => -1)
        .withOwnedTopicPartitions(owned({ topic2: [4, 5, 6] }))
        .build();
      expect(updated).toEqual(
        member({
          memberEpoch: expectedMemberEpoch,
          previousMemberEpoch: memberEpoch,
          subscribedTopicNames: new Set(['topic2']),
          assignedPartitions: parts({ topic2: [4, 5, 6] }),
        }),
      );
    },
  );

  it.each([
    [10, 11, 10, false],
    [10, 11, 10, true],
    [10, 10, 10, true],
  ])(
    'asks the member to revoke the partitions of a topic it no longer subscribes to but still owns (epoch %i, target %i → %i, subscription changed: %s; testStableToUnrevokedPartitionsWithAssignmentTopicsNoLongerInSubscription)',
    (memberEpoch, targetAssignmentEpoch, expectedMemberEpoch, hasSubscriptionChanged) => {
      const m = member({
        memberEpoch,
        previousMemberEpoch: memberEpoch,
        subscribedTopicNames: new Set(['topic2']),
        assignedPartitions: parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }),
      });
      const updated = builder(m)
        .withTargetAssignment(targetAssignmentEpoch, parts({ topic1: [1, 2, 3], topic2: [4, 5, 6] }))
        .withHasSubscriptionChanged(hasSubscriptionChanged)
        .withCurrentPartitionEpoch(() => -1)
        .withOwnedTopicPartitions(owned({ topic1: [1, 2, 3], topic2: [4, 5, 6] }))
        .build();
      expect(updated).toEqual(
        member({
          state: MemberState.UNREVOKED_PARTITIONS,
          memberEpoch: expectedMemberEpoch,
          previousMemberEpoch: memberEpoch,
          subscribedTopicNames: new Set(['topic2']),
          assignedPartitions: parts({ topic2: [4, 5, 6] }),
          partitionsPendingRevocation: parts({ topic1: [1, 2, 3] }),
        }),
      );
    },
  );

  it('adds an unsubscribed topic to the partitions a revoking member must give up (testRemainsInUnrevokedPartitionsWithAssignmentTopicsNoLongerInSubscription)', () => {
    const m = member({
      state: MemberState.UNREVOKED_PARTITIONS,
      memberEpoch: 10,
      previousMemberEpoch: 10,
      subscribedTopicNames: new Set(['topic2']),
      assignedPartitions: parts({ topic1: [2, 3], topic2: [5, 6] }),
      partitionsPendingRevocation: parts({ topic1: [1], topic2: [4] }),
    });
    const updated = builder(m)
      .withTargetAssignment(12, parts({ topic1: [1, 3, 4], topic2: [6, 7] }))
      .withHasSubscriptionChanged(true)
      .withCurrentPartitionEpoch(() => -1)
      .withOwnedTopicPartitions(owned({ topic1: [1, 2, 3], topic2: [4, 5, 6] }))
      .build();
    expect(updated).toEqual(
      member({
        state: MemberState.UNREVOKED_PARTITIONS,
        memberEpoch: 10,
        previousMemberEpoch: 10,
        subscribedTopicNames: new Set(['topic2']),
        assignedPartitions: parts({ topic2: [5, 6] }),
        partitionsPendingRevocation: parts({ topic1: [1, 2, 3], topic2: [4] }),
      }),
    );
  });

  describe('regular expressions', () => {
    const regexMember = (names: string[]): ConsumerGroupMember =>
      newConsumerGroupMember('member', {
        memberEpoch: 10,
        previousMemberEpoch: 10,
        subscribedTopicNames: new Set(names),
        subscribedTopicRegex: 'bar*',
        assignedPartitions: parts({ foo: [1, 2, 3], bar: [4, 5, 6] }),
      });

    it('revokes the topics of a regex that is not resolved yet, keeping the named ones (testSubscribedTopicNameAndUnresolvedRegularExpression)', () => {
      const m = regexMember(['foo']);
      const updated = builder(m, ['foo', 'bar'])
        .withTargetAssignment(10, parts({ foo: [1, 2, 3], bar: [4, 5, 6] }))
        .withHasSubscriptionChanged(true)
        .withResolvedRegularExpressions(new Map())
        .withCurrentPartitionEpoch(() => -1)
        .withOwnedTopicPartitions(owned({ foo: [1, 2, 3], bar: [4, 5, 6] }))
        .build();
      expect(updated).toEqual({
        ...m,
        state: MemberState.UNREVOKED_PARTITIONS,
        assignedPartitions: parts({ foo: [1, 2, 3] }),
        partitionsPendingRevocation: parts({ bar: [4, 5, 6] }),
      });
    });

    it('revokes everything of a member subscribed only by a regex that is not resolved yet (testUnresolvedRegularExpression)', () => {
      const m = regexMember([]);
      const updated = builder(m, ['foo', 'bar'])
        .withTargetAssignment(10, parts({ foo: [1, 2, 3], bar: [4, 5, 6] }))
        .withHasSubscriptionChanged(true)
        .withResolvedRegularExpressions(new Map())
        .withCurrentPartitionEpoch(() => -1)
        .withOwnedTopicPartitions(owned({ foo: [1, 2, 3], bar: [4, 5, 6] }))
        .build();
      expect(updated).toEqual({
        ...m,
        state: MemberState.UNREVOKED_PARTITIONS,
        assignedPartitions: new Map(),
        partitionsPendingRevocation: parts({ foo: [1, 2, 3], bar: [4, 5, 6] }),
      });
    });

    it('keeps the topics a resolved regex matches beside the named ones (testSubscribedTopicNameAndResolvedRegularExpression)', () => {
      const m = regexMember(['foo']);
      const updated = builder(m, ['foo', 'bar'])
        .withTargetAssignment(10, parts({ foo: [1, 2, 3], bar: [4, 5, 6] }))
        .withHasSubscriptionChanged(true)
        .withResolvedRegularExpressions(new Map([['bar*', new Set(['bar'])]]))
        .withCurrentPartitionEpoch(() => -1)
        .withOwnedTopicPartitions(owned({ foo: [1, 2, 3], bar: [4, 5, 6] }))
        .build();
      expect(updated).toEqual(m);
    });
  });

  it('treats a subscribed topic that no longer exists as unsubscribed (Kafka resolves names through its metadata image)', () => {
    const m = member({
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ topic1: [1, 2], topic2: [3] }),
    });
    const updated = builder(m, ['topic2'])
      .withTargetAssignment(10, parts({ topic1: [1, 2], topic2: [3] }))
      .withHasSubscriptionChanged(true)
      .withOwnedTopicPartitions(owned({ topic2: [3] }))
      .build();
    expect(updated).toEqual({ ...m, assignedPartitions: parts({ topic2: [3] }) });
  });
});
