import { assignmentProblems, subscriptionProblems } from './consumer-protocol-rules';

describe('consumer subscription rules', () => {
  it('accepts what a consumer sends, with or without the optional fields, and unknown extra fields', () => {
    expect(subscriptionProblems({ topics: [] }, 'm')).toEqual([]);
    expect(
      subscriptionProblems(
        {
          topics: ['a', 'b'],
          userData: { any: [1] },
          ownedPartitions: [{ topic: 'a', partitions: [0, 2] }],
          generationId: -1,
          rackId: null,
          future: 1,
        },
        'm',
      ),
    ).toEqual([]);
    expect(subscriptionProblems({ topics: ['a'], rackId: 'r1', generationId: 7 }, 'm')).toEqual([]);
  });

  it.each<[unknown, string[]]>([
    [true, ['m must be a consumer subscription { topics: string[], ... }']],
    [[], ['m must be a consumer subscription { topics: string[], ... }']],
    [null, ['m must be a consumer subscription { topics: string[], ... }']],
    [{}, ['m.topics must be an array of strings']],
    [{ topics: 't' }, ['m.topics must be an array of strings']],
    [{ topics: [7, 'ok', null] }, ['m.topics[0] must be a string', 'm.topics[2] must be a string']],
    [{ topics: [], ownedPartitions: {} }, ['m.ownedPartitions must be an array of { topic, partitions }']],
    [{ topics: [], ownedPartitions: [5] }, ['m.ownedPartitions[0] must be an object { topic, partitions }']],
    [
      { topics: [], ownedPartitions: [{ topic: 1, partitions: [0.5] }] },
      [
        'm.ownedPartitions[0].topic must be a string',
        'm.ownedPartitions[0].partitions[0] must be an integer in [0, 2147483647]',
      ],
    ],
    [{ topics: [], generationId: 1.5 }, ['m.generationId must be an integer in [-1, 2147483647]']],
    [{ topics: [], generationId: -2 }, ['m.generationId must be an integer in [-1, 2147483647]']],
    [{ topics: [], rackId: 3 }, ['m.rackId must be a string or null']],
  ])('refuses %j naming each bad field', (metadata, problems) => {
    expect(subscriptionProblems(metadata, 'm')).toEqual(problems);
  });
});

describe('consumer assignment rules', () => {
  it('accepts an assignment with partitions and any userData', () => {
    expect(assignmentProblems({ partitions: [] }, 'a')).toEqual([]);
    expect(assignmentProblems({ partitions: [{ topic: 't', partitions: [0, 1] }], userData: 'x' }, 'a')).toEqual([]);
  });

  it.each<[unknown, string]>([
    [5, 'a must be a consumer assignment { partitions: [{ topic, partitions }] }'],
    ['x', 'a must be a consumer assignment { partitions: [{ topic, partitions }] }'],
    [[], 'a must be a consumer assignment { partitions: [{ topic, partitions }] }'],
    [{}, 'a.partitions must be an array of { topic, partitions }'],
    [{ partitions: null }, 'a.partitions must be an array of { topic, partitions }'],
    [{ partitions: {} }, 'a.partitions must be an array of { topic, partitions }'],
    [
      { partitions: [{ topic: 't', partitions: 'x' }] },
      'a.partitions[0].partitions must be an array of partition indexes',
    ],
    [
      { partitions: [{ topic: 't', partitions: [-1] }] },
      'a.partitions[0].partitions[0] must be an integer in [0, 2147483647]',
    ],
  ])('refuses %j', (assignment, problem) => {
    expect(assignmentProblems(assignment, 'a')).toEqual([problem]);
  });
});
