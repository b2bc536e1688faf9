import { createServerRangeAssignor } from '@cohort/assignors';
import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';
import { member, setup } from '../../testing/consumer-heartbeat-fixtures';
import { describeConsumerGroup } from './consumer-group-rules';
import { consumerGroupEpochRecord, memberSubscriptionRecord } from './consumer-records';

// Kafka's GroupMetadataManagerTest ConsumerGroupDescribe cases: the groups as their records left
// them, on the virtual-clock harness, and a group id the coordinator does not hold, end to end.

describe('ConsumerGroupDescribe (Kafka GroupMetadataManagerTest)', () => {
  it('describes an empty group with the default assignor and a group whose member waits for its first target (testConsumerGroupDescribeNoErrors)', () => {
    const { h, now } = setup();
    const subscriber = member('member-id', {
      clientId: '',
      clientHost: '',
      subscribedTopicNames: new Set(['topicName']),
      serverAssignorName: 'assignorName',
    });
    h.replay([
      consumerGroupEpochRecord('group-id-1', 10, 0, now),
      memberSubscriptionRecord('group-id-2', subscriber, now),
      consumerGroupEpochRecord('group-id-2', 10, 0, now),
    ]);
    const described = ['group-id-1', 'group-id-2'].map((id) => describeConsumerGroup(h.groups.get(id)!, 'range'));
    expect(described).toEqual([
      {
        errorCode: 0,
        groupId: 'group-id-1',
        groupState: 'Empty',
        groupEpoch: 10,
        assignmentEpoch: 0,
        assignorName: 'range',
        members: [],
      },
      {
        errorCode: 0,
        groupId: 'group-id-2',
        // Its epoch is ahead of its assignment's: the group is computing a target.
        groupState: 'Assigning',
        groupEpoch: 10,
        assignmentEpoch: 0,
        // The assignor its members ask for wins over the default.
        assignorName: 'assignorName',
        members: [
          {
            memberId: 'member-id',
            instanceId: null,
            rackId: null,
            memberEpoch: 0,
            clientId: '',
            clientHost: '',
            subscribedTopicNames: ['topicName'],
            subscribedTopicRegex: '',
            assignment: { topicPartitions: [] },
            targetAssignment: { topicPartitions: [] },
            memberType: 1,
          },
        ],
      },
    ]);
  });

  it('answers GROUP_ID_NOT_FOUND for a group id the coordinator does not hold (testConsumerGroupDescribeWithErrors)', async () => {
    const h = new CoordinatorHarness({
      topics: [{ name: 'foo', partitions: 1 }],
      consumerAssignors: [createServerRangeAssignor()],
    });
    await h.settle();
    const response = await h.coordinator.consumerGroupDescribe({ groupIds: ['groupId'] });
    expect(response.groups).toHaveLength(1);
    expect(response.groups[0]).toMatchObject({
      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
      groupId: 'groupId',
      members: [],
    });
  });

  it('answers GROUP_ID_NOT_FOUND when the id names a share group, which it leaves as it was (testConsumerGroupDescribeOnShareGroup)', async () => {
    const h = new CoordinatorHarness({ topics: [{ name: 'foo', partitions: 1 }], autoCommit: true });
    await h.settle();
    const share = await h.coordinator.shareGroupHeartbeat(
      { groupId: 'group-foo', memberId: 'm1', memberEpoch: 0, subscribedTopicNames: ['foo'] },
      h.context('conn-m1'),
    );
    expect(share).toMatchObject({ errorCode: 0, memberEpoch: 1 });
    const response = await h.coordinator.consumerGroupDescribe({ groupIds: ['group-foo'] });
    expect(response.groups).toEqual([
      expect.objectContaining({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, groupId: 'group-foo', members: [] }),
    ]);
    const described = await h.coordinator.shareGroupDescribe({ groupIds: ['group-foo'] });
    expect(described.groups[0]).toMatchObject({ errorCode: 0, groupEpoch: 1 });
  });
});
