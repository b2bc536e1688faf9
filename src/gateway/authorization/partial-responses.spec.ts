import { mergeByGroup, mergeTopics, refusedFetchTopic, refusedPartitions } from './partial-responses';

describe('partial responses', () => {
  it('puts refused topics beside the answered ones in the order the request named them', () => {
    const requested = [{ name: 'b' }, { name: 'a' }, { name: 'c' }];
    const answered = [
      { name: 'c', partitions: [{ partitionIndex: 0, errorCode: 0 }] },
      { name: 'b', partitions: [{ partitionIndex: 1, errorCode: 0 }] },
    ];
    const refused = refusedPartitions([{ name: 'a', partitions: [{ partitionIndex: 0 }, { partitionIndex: 2 }] }], 29);
    expect(
      mergeTopics(requested, answered, refused).map((t) => [
        t.name,
        t.partitions.map((p) => `${p.partitionIndex}:${p.errorCode}`).join(','),
      ]),
    ).toEqual([
      ['b', '1:0'],
      ['a', '0:29,2:29'],
      ['c', '0:0'],
    ]);
  });

  it('keeps every answer of a topic the request named twice, and what the coordinator answered beyond the request', () => {
    const requested = [{ name: 'a' }, { name: 'a' }];
    const answered = [
      { name: 'a', partitions: [] },
      { name: 'a', partitions: [] },
      { name: 'extra', partitions: [] },
    ];
    expect(mergeTopics(requested, answered, []).map((t) => t.name)).toEqual(['a', 'a', 'extra']);
  });

  it('answers a refused explicit fetch with nothing committed and 29 per partition', () => {
    expect(refusedFetchTopic({ name: 't', partitionIndexes: [3] })).toEqual({
      name: 't',
      partitions: [{ partitionIndex: 3, committedOffset: -1, committedLeaderEpoch: -1, metadata: null, errorCode: 29 }],
    });
  });

  it('merges per-group results in request order, once per group', () => {
    const merged = mergeByGroup(['y', 'x', 'y'], [{ groupId: 'x', errorCode: 0 }], [{ groupId: 'y', errorCode: 30 }]);
    expect(merged).toEqual([
      { groupId: 'y', errorCode: 30 },
      { groupId: 'x', errorCode: 0 },
    ]);
  });
});
