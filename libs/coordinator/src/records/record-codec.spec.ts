import { decodeGroupMetadataValue, encodeGroupMetadataValue } from './group-metadata-record';
import type { GroupMetadataRecord } from './group-metadata-record';
import { decodeOffsetCommitValue, encodeOffsetCommitValue } from './offset-commit-record';
import { decodeKey, groupMetadataKey, offsetCommitKey, RecordDecodeError } from './record-codec';

describe('__consumer_offsets record codec', () => {
  it('gives one logical key the same bytes every time, so compaction keeps the latest per key', () => {
    expect(offsetCommitKey('g', 'orders', 3).equals(offsetCommitKey('g', 'orders', 3))).toBe(true);
    expect(offsetCommitKey('g', 'orders', 3).toString()).toBe('[1,"g","orders",3]');
    expect(groupMetadataKey('g').toString()).toBe('[2,"g"]');
    // Keys of different groups, topics or types never collide, whatever the characters.
    const keys = [offsetCommitKey('a,b', 'c', 1), offsetCommitKey('a', 'b,c', 1), groupMetadataKey('[1,"a"'), groupMetadataKey('a')];
    expect(new Set(keys.map((k) => k.toString())).size).toBe(keys.length);
  });

  it('decodes keys by their version (the record type), including Kafka key version 0 for offsets', () => {
    expect(decodeKey(offsetCommitKey('g', 't', 0))).toEqual({ type: 'offset-commit', groupId: 'g', topic: 't', partition: 0 });
    expect(decodeKey(Buffer.from('[0,"g","t",5]'))).toEqual({ type: 'offset-commit', groupId: 'g', topic: 't', partition: 5 });
    expect(decodeKey(groupMetadataKey('🚀 group'))).toEqual({ type: 'group-metadata', groupId: '🚀 group' });
    expect(decodeKey(Buffer.from('[3,"g"]'))).toEqual({ type: 'unknown', version: 3 });
    expect(() => decodeKey(Buffer.from('{"a":1}'))).toThrow(RecordDecodeError);
    expect(() => decodeKey(Buffer.from('[1,"g","t","x"]'))).toThrow(RecordDecodeError);
  });

  it('round-trips offset commit values (v3, and v1 with a legacy expiry)', () => {
    const v3 = { offset: 42, leaderEpoch: 7, metadata: 'm', commitTimestamp: 1000, expireTimestamp: null };
    expect(decodeOffsetCommitValue(encodeOffsetCommitValue(v3))).toEqual(v3);
    expect(JSON.parse(encodeOffsetCommitValue(v3).toString()).v).toBe(3);
    const v1 = { ...v3, expireTimestamp: 5000 };
    expect(decodeOffsetCommitValue(encodeOffsetCommitValue(v1))).toEqual(v1);
    expect(JSON.parse(encodeOffsetCommitValue(v1).toString()).v).toBe(1);
    expect(() => decodeOffsetCommitValue(Buffer.from('{"offset":"1"}'))).toThrow(/offset/);
  });

  it('round-trips group metadata values', () => {
    const value: GroupMetadataRecord = {
      protocolType: 'consumer',
      generation: 4,
      protocol: 'range',
      leader: 'm-1',
      currentStateTimestamp: 99,
      serverAssignor: null,
      rebalances: [{ generationId: 4, reason: 'joined', startedAt: 10, completedAt: 15, durationMs: 5, members: 1, protocol: 'range' }],
      members: [
        {
          memberId: 'm-1',
          groupInstanceId: 'i-1',
          clientId: 'c',
          clientHost: '/10.0.0.1',
          rebalanceTimeout: 300000,
          sessionTimeout: 45000,
          subscription: { topics: ['t'] },
          assignment: { partitions: [{ topic: 't', partitions: [0] }] },
          serverAssignor: 'range',
        },
      ],
    };
    expect(decodeGroupMetadataValue(encodeGroupMetadataValue(value))).toEqual(value);
    expect(() => decodeGroupMetadataValue(Buffer.from('{"protocolType":"consumer","generation":1,"protocol":null,"leader":null,"members":{}}'))).toThrow(/members/);
  });
});
