import { newConsumerGroupMember } from './consumer-group-member';
import {
  decodeConsumerRecordKey,
  decodeMemberMetadataValue,
  decodeTargetAssignmentMetadataValue,
  memberSubscriptionRecord,
  targetAssignmentEpochRecord,
} from './consumer-records';

// A member's metadata record is applied by the process that wrote it without parsing its bytes back:
// what that process applies must be exactly what a coordinator loading the same bytes from the log reads.

const fromLog = (bytes: Buffer) => decodeMemberMetadataValue(Buffer.from(bytes));

describe('the consumer group member metadata record', () => {
  it.each([
    ['a dynamic member', newConsumerGroupMember('m-1', { subscribedTopicNames: new Set(['b', 'a']) })],
    [
      'a static member with a rack, a regex and a server assignor',
      newConsumerGroupMember('m-"2"\u00e9', {
        instanceId: 'instance-1',
        rackId: 'rack-a',
        clientId: 'client "x"',
        clientHost: '/127.0.0.1',
        subscribedTopicNames: new Set(['orders', 'audit']),
        subscribedTopicRegex: 'orders-.*',
        rebalanceTimeoutMs: 45_000,
        serverAssignorName: 'range',
      }),
    ],
    [
      'a classic member (its protocols as the log gives them back)',
      newConsumerGroupMember('m-3', {
        subscribedTopicNames: new Set(['orders']),
        classicMemberMetadata: {
          sessionTimeoutMs: 10_000,
          supportedProtocols: [{ name: 'range', metadata: { version: 3, topics: ['orders'] } }],
        },
      }),
    ],
  ])('reads back as a load of its bytes does: %s', (_, member) => {
    const record = memberSubscriptionRecord('orders-app', member, 1_000);
    expect(decodeMemberMetadataValue(record.value!)).toEqual(fromLog(record.value!));
    expect(fromLog(record.value!).subscribedTopicNames).toEqual([...member.subscribedTopicNames].sort());
    expect(decodeConsumerRecordKey(record.key)).toEqual(decodeConsumerRecordKey(Buffer.from(record.key)));
    expect(decodeConsumerRecordKey(record.key)).toEqual({
      type: 'consumer-group-member-metadata',
      groupId: 'orders-app',
      memberId: member.memberId,
    });
  });

  it('the target assignment epoch record reads back as a load of its bytes does', () => {
    const record = targetAssignmentEpochRecord('orders-app', 17, 1_000);
    expect(decodeTargetAssignmentMetadataValue(record.value!)).toEqual(
      decodeTargetAssignmentMetadataValue(Buffer.from(record.value!)),
    );
    expect(decodeTargetAssignmentMetadataValue(record.value!)).toEqual({ assignmentEpoch: 17 });
    expect(decodeConsumerRecordKey(record.key)).toEqual(decodeConsumerRecordKey(Buffer.from(record.key)));
  });
});
