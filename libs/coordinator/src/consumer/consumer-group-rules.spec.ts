import { ConsumerGroup } from './consumer-group';
import { newConsumerGroupMember } from './consumer-group-member';
import {
  describeConsumerGroup,
  validateDeleteGroup,
  validateOffsetCommit,
  validateOffsetFetch,
} from './consumer-group-rules';

// Kafka's ConsumerGroupTest cases for offsets, deletion and describe.

const errorOf = (fn: () => void) => {
  try {
    fn();
  } catch (error) {
    return (error as { errorName?: string }).errorName;
  }
  return 'none';
};

describe('consumer group rules for other requests (Kafka ConsumerGroupTest)', () => {
  it('accepts a commit from outside the group only while it has no members, and checks a member epoch otherwise (testValidateOffsetCommit)', () => {
    const group = new ConsumerGroup('group-foo');
    expect(errorOf(() => validateOffsetCommit(group, '', -1))).toBe('none');
    expect(errorOf(() => validateOffsetCommit(group, 'member-id', 0))).toBe('UNKNOWN_MEMBER_ID');
    group.updateMember(newConsumerGroupMember('new-protocol-member-id'));
    expect(errorOf(() => validateOffsetCommit(group, '', -1))).toBe('UNKNOWN_MEMBER_ID');
    expect(errorOf(() => validateOffsetCommit(group, 'new-protocol-member-id', 10))).toBe('STALE_MEMBER_EPOCH');
    expect(errorOf(() => validateOffsetCommit(group, 'new-protocol-member-id', 0))).toBe('none');
  });

  it('lets an admin fetch offsets without a member, and checks the member and epoch when given (testValidateOffsetFetch)', () => {
    const group = new ConsumerGroup('group-foo');
    expect(errorOf(() => validateOffsetFetch(group, null, -1))).toBe('none');
    expect(errorOf(() => validateOffsetFetch(group, 'member-id', 0))).toBe('UNKNOWN_MEMBER_ID');
    group.updateMember(newConsumerGroupMember('member-id'));
    expect(errorOf(() => validateOffsetFetch(group, 'member-id', 10))).toBe('STALE_MEMBER_EPOCH');
    expect(errorOf(() => validateOffsetFetch(group, 'member-id', 0))).toBe('none');
  });

  it('deletes only an Empty group, whatever state the others are in (testValidateDeleteGroup)', () => {
    const group = new ConsumerGroup('foo');
    expect(errorOf(() => validateDeleteGroup(group))).toBe('none');
    group.updateMember(newConsumerGroupMember('member1', { memberEpoch: 1, previousMemberEpoch: 0 }));
    expect(group.state).toBe('Reconciling');
    expect(errorOf(() => validateDeleteGroup(group))).toBe('NON_EMPTY_GROUP');
    group.setGroupEpoch(1);
    expect(group.state).toBe('Assigning');
    expect(errorOf(() => validateDeleteGroup(group))).toBe('NON_EMPTY_GROUP');
    group.setTargetAssignmentEpoch(1);
    expect(group.state).toBe('Stable');
    expect(errorOf(() => validateDeleteGroup(group))).toBe('NON_EMPTY_GROUP');
  });

  it('describes the group with its epochs, preferred assignor and each member beside its target (testAsDescribedGroup)', () => {
    const group = new ConsumerGroup('group-id-1');
    group.updateMember(
      newConsumerGroupMember('member1', { subscribedTopicNames: new Set(['foo']), serverAssignorName: 'assignorName' }),
    );
    group.updateMember(newConsumerGroupMember('member2', { assignedPartitions: new Map([['foo', new Set([1, 0])]]) }));
    group.updateTargetAssignment('member2', new Map([['foo', new Set([0, 1, 2])]]));
    const member = (memberId: string, fields: object) => ({
      memberId,
      instanceId: null,
      rackId: null,
      memberEpoch: 0,
      clientId: '',
      clientHost: '',
      subscribedTopicNames: [],
      subscribedTopicRegex: '',
      assignment: { topicPartitions: [] },
      targetAssignment: { topicPartitions: [] },
      memberType: 1,
      ...fields,
    });
    expect(describeConsumerGroup(group, 'uniform')).toEqual({
      errorCode: 0,
      groupId: 'group-id-1',
      groupState: 'Stable',
      groupEpoch: 0,
      assignmentEpoch: 0,
      assignorName: 'assignorName',
      members: [
        member('member1', { subscribedTopicNames: ['foo'] }),
        member('member2', {
          assignment: { topicPartitions: [{ topic: 'foo', partitions: [0, 1] }] },
          targetAssignment: { topicPartitions: [{ topic: 'foo', partitions: [0, 1, 2] }] },
        }),
      ],
    });
    expect(describeConsumerGroup(new ConsumerGroup('empty'), 'uniform').assignorName).toBe('uniform');
  });
});
