import { decodeConsumerRecordKey, ConsumerRecordType } from '../consumer/consumer-records';
import { decodeShareRecordKey, ShareRecordType } from '../share/share-group-records';
import { encodeJson } from './record-codec';
import { groupRecordKey } from './group-record-key';

// A loader asks each group type's decoder in turn: a key must be read by its own type's decoder only,
// and a key of the wrong shape must not be taken for a record of either type.
describe('group record keys', () => {
  it('reads back what it wrote, group-wide and per member', () => {
    expect(decodeConsumerRecordKey(groupRecordKey(ConsumerRecordType.CONSUMER_GROUP_METADATA, 'g'))).toEqual({
      type: 'consumer-group-metadata',
      groupId: 'g',
    });
    expect(
      decodeShareRecordKey(groupRecordKey(ShareRecordType.SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT, 'g', 'm')),
    ).toEqual({ type: 'share-group-current-member-assignment', groupId: 'g', memberId: 'm' });
  });

  it("leaves the other group type's keys alone", () => {
    const consumer = groupRecordKey(ConsumerRecordType.CONSUMER_GROUP_MEMBER_METADATA, 'g', 'm');
    const share = groupRecordKey(ShareRecordType.SHARE_GROUP_METADATA, 'g');
    expect(decodeShareRecordKey(consumer)).toBeUndefined();
    expect(decodeConsumerRecordKey(share)).toBeUndefined();
  });

  it.each([
    ['a group-wide type with a member id', [ConsumerRecordType.CONSUMER_GROUP_METADATA, 'g', 'm']],
    ['a member type without a member id', [ConsumerRecordType.CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, 'g']],
    ['a type that is a string', [String(ConsumerRecordType.CONSUMER_GROUP_METADATA), 'g']],
    ['a group id that is not a string', [ConsumerRecordType.CONSUMER_GROUP_METADATA, 7]],
    ['a member id that is not a string', [ConsumerRecordType.CONSUMER_GROUP_MEMBER_METADATA, 'g', 7]],
    ['a classic offset key', [1, 'g', 'topic', 0]],
    ['an object', { type: ConsumerRecordType.CONSUMER_GROUP_METADATA, groupId: 'g' }],
  ])('does not take %s for a consumer or share record', (_what, key) => {
    expect(decodeConsumerRecordKey(encodeJson(key))).toBeUndefined();
    expect(decodeShareRecordKey(encodeJson(key))).toBeUndefined();
  });
});
