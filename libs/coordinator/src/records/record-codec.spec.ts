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
    const keys = [
      offsetCommitKey('a,b', 'c', 1),
      offsetCommitKey('a', 'b,c', 1),
      groupMetadataKey('[1,"a"'),
      groupMetadataKey('a'),
    ];
    expect(new Set(keys.map((k) => k.toString())).size).toBe(keys.length);
  });

  it('decodes keys by their version (the record type), including Kafka key version 0 for offsets', () => {
    expect(decodeKey(offsetCommitKey('g', 't', 0))).toEqual({
      type: 'offset-commit',
      groupId: 'g',
      topic: 't',
      partition: 0,
    });
    expect(decodeKey(Buffer.from('[0,"g","t",5]'))).toEqual({
      type: 'offset-commit',
      groupId: 'g',
      topic: 't',
      partition: 5,
    });
    expect(decodeKey(groupMetadataKey('🚀 group'))).toEqual({ type: 'group-metadata', groupId: '🚀 group' });
    expect(decodeKey(Buffer.from('[3,"g"]'))).toEqual({ type: 'unknown', version: 3 });
    expect(() => decodeKey(Buffer.from('{"a":1}'))).toThrow(RecordDecodeError);
    expect(() => decodeKey(Buffer.from('[1,"g","t","x"]'))).toThrow(RecordDecodeError);
  });

  it("round-trips offset commit values in Kafka's binary layout (v3), and reads Kafka's v1 with its legacy expiry", () => {
    const v3 = { offset: 42, leaderEpoch: 7, metadata: 'm', commitTimestamp: 1000, expireTimestamp: null };
    const bytes = encodeOffsetCommitValue(v3);
    expect(decodeOffsetCommitValue(bytes)).toEqual(v3);
    // int16 version, int64 offset, int32 leader epoch, int16-length metadata, int64 commit timestamp.
    expect(bytes.toString('hex')).toBe('0003' + '000000000000002a' + '00000007' + '0001' + '6d' + '00000000000003e8');
    const kafkaV1 = Buffer.from('0001' + '000000000000002a' + '0000' + '00000000000003e8' + '0000000000001388', 'hex');
    expect(decodeOffsetCommitValue(kafkaV1)).toEqual({
      offset: 42,
      leaderEpoch: -1,
      metadata: '',
      commitTimestamp: 1000,
      expireTimestamp: 5000,
    });
    const large = {
      offset: 2 ** 53 - 1,
      leaderEpoch: -1,
      metadata: '🚀 ünïcode',
      commitTimestamp: 1_764_628_800_000,
      expireTimestamp: null,
    };
    expect(decodeOffsetCommitValue(encodeOffsetCommitValue(large))).toEqual(large);
  });

  it("reads offset commit values written by earlier releases as JSON, and writes JSON only where Kafka's layout would lose a field", () => {
    expect(
      decodeOffsetCommitValue(Buffer.from('{"v":3,"offset":4,"leaderEpoch":2,"metadata":"m","commitTimestamp":5}')),
    ).toEqual({
      offset: 4,
      leaderEpoch: 2,
      metadata: 'm',
      commitTimestamp: 5,
      expireTimestamp: null,
    });
    expect(
      decodeOffsetCommitValue(Buffer.from('{"v":1,"offset":4,"metadata":"","commitTimestamp":5,"expireTimestamp":9}')),
    ).toEqual({
      offset: 4,
      leaderEpoch: -1,
      metadata: '',
      commitTimestamp: 5,
      expireTimestamp: 9,
    });
    expect(() => decodeOffsetCommitValue(Buffer.from('{"offset":"1"}'))).toThrow(/offset/);
    const long = { offset: 1, leaderEpoch: 0, metadata: 'x'.repeat(40_000), commitTimestamp: 2, expireTimestamp: null };
    expect(JSON.parse(encodeOffsetCommitValue(long).toString()).v).toBe(3);
    expect(decodeOffsetCommitValue(encodeOffsetCommitValue(long))).toEqual(long);
    // A replayed legacy expiry keeps its leader epoch, which Kafka's v1 has no field for.
    const expiring = { offset: 42, leaderEpoch: 7, metadata: 'm', commitTimestamp: 1000, expireTimestamp: 5000 };
    expect(JSON.parse(encodeOffsetCommitValue(expiring).toString()).v).toBe(1);
    expect(decodeOffsetCommitValue(encodeOffsetCommitValue(expiring))).toEqual(expiring);
  });

  it('rejects binary offset commit values that are truncated, too long, of an unknown version or beyond 2^53', () => {
    const good = encodeOffsetCommitValue({
      offset: 1,
      leaderEpoch: 0,
      metadata: 'ab',
      commitTimestamp: 2,
      expireTimestamp: null,
    });
    expect(() => decodeOffsetCommitValue(good.subarray(0, good.length - 1))).toThrow(RecordDecodeError);
    expect(() => decodeOffsetCommitValue(Buffer.concat([good, Buffer.from([0])]))).toThrow(RecordDecodeError);
    expect(() => decodeOffsetCommitValue(Buffer.from([0]))).toThrow(RecordDecodeError);
    expect(() => decodeOffsetCommitValue(Buffer.from([0, 9, ...good.subarray(2)]))).toThrow(/version 9/);
    const huge = Buffer.from(good);
    huge.writeInt32BE(0x7fff_ffff, 2);
    expect(() => decodeOffsetCommitValue(huge)).toThrow(/2\^53/);
  });

  it('round-trips group metadata values', () => {
    const value: GroupMetadataRecord = {
      protocolType: 'consumer',
      generation: 4,
      protocol: 'range',
      leader: 'm-1',
      currentStateTimestamp: 99,
      serverAssignor: null,
      rebalances: [
        {
          generationId: 4,
          reason: 'joined',
          startedAt: 10,
          completedAt: 15,
          durationMs: 5,
          members: 1,
          protocol: 'range',
        },
      ],
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
    expect(() =>
      decodeGroupMetadataValue(
        Buffer.from('{"protocolType":"consumer","generation":1,"protocol":null,"leader":null,"members":{}}'),
      ),
    ).toThrow(/members/);
  });
});
