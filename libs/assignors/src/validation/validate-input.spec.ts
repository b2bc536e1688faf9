import { thrown } from '@cohort/assignors/testing';
import { KafkaError } from '@cohort/protocol';
import { createRangeAssignor } from '../range/range-assignor';
import { createCooperativeStickyAssignor } from '../sticky/cooperative-sticky-assignor';
import { validateAssignorInput } from './validate-input';

const rejection = (run: () => unknown): KafkaError => thrown(KafkaError, run);

const ok = (memberId: string, topics: string[] = ['t']) => ({ memberId, subscription: { topics } });

describe('assignor input validation', () => {
  it.each([
    [
      'a negative partition count',
      { partitionsPerTopic: { t: -1 } },
      [ok('a')],
      'partitionsPerTopic.t: partition count must be a non-negative integer, got -1',
    ],
    [
      'a fractional partition count',
      { partitionsPerTopic: { t: 1.5 } },
      [ok('a')],
      'partitionsPerTopic.t: partition count must be a non-negative integer, got 1.5',
    ],
    [
      'duplicate member ids',
      { partitionsPerTopic: { t: 1 } },
      [ok('a'), ok('b'), ok('a')],
      "members[2].memberId: duplicate member id 'a' (also members[0])",
    ],
    [
      'an empty member id',
      { partitionsPerTopic: { t: 1 } },
      [ok('')],
      'members[0].memberId: must be a non-empty string, got ""',
    ],
    [
      'topics that are not strings',
      { partitionsPerTopic: { t: 1 } },
      [{ memberId: 'a', subscription: { topics: ['t', 3] } }],
      'members[0].subscription.topics[1]: must be a non-empty string, got 3',
    ],
    [
      'a negative owned partition',
      { partitionsPerTopic: { t: 1 } },
      [{ memberId: 'a', subscription: { topics: ['t'], ownedPartitions: [{ topic: 't', partitions: [-1] }] } }],
      'members[0].subscription.ownedPartitions[0].partitions: partition numbers must be integers from 0 to 2147483647, got -1',
    ],
    [
      'a non-integer generation',
      { partitionsPerTopic: { t: 1 } },
      [{ memberId: 'a', subscription: { topics: ['t'], generationId: 'x' } }],
      'members[0].subscription.generationId: must be an int32, got "x"',
    ],
    [
      'racks for an unknown topic',
      { partitionsPerTopic: { t: 1 }, partitionRacks: { u: [['a']] } },
      [ok('a')],
      "partitionRacks.u: unknown topic 'u' (not in partitionsPerTopic)",
    ],
    [
      'too many rack entries',
      { partitionsPerTopic: { t: 1 }, partitionRacks: { t: [['a'], ['b']] } },
      [ok('a')],
      'partitionRacks.t: has 2 entries but the topic has 1 partitions',
    ],
    [
      'duplicate instance ids',
      { partitionsPerTopic: { t: 1 } },
      [
        { ...ok('a'), groupInstanceId: 'i' },
        { ...ok('b'), groupInstanceId: 'i' },
      ],
      "members[1].groupInstanceId: duplicate group instance id 'i' (also members[0])",
    ],
  ])('rejects %s with INVALID_REQUEST naming the field', (_label, cluster, members, message) => {
    const error = rejection(() => validateAssignorInput(cluster, members));
    expect(error.errorCode).toBe(42);
    expect(error.message).toBe(message);
  });

  it('rejects a hole in the owned partitions or the members instead of failing inside an assignor', () => {
    // eslint-disable-next-line no-sparse-arrays -- a hole is the input under test
    const owned = [, { topic: 't', partitions: [0] }];
    const error = rejection(() =>
      createRangeAssignor().assign({ partitionsPerTopic: { t: 1 } }, [
        { memberId: 'a', subscription: { topics: ['t'], ownedPartitions: owned as never } },
      ]),
    );
    expect(error.message).toBe(
      'members[0].subscription.ownedPartitions[0]: must be { topic, partitions }, got undefined',
    );
    // eslint-disable-next-line no-sparse-arrays -- a hole is the input under test
    expect(rejection(() => validateAssignorInput({ partitionsPerTopic: { t: 1 } }, [ok('a'), , ok('b')])).message).toBe(
      'members[1]: must be { memberId, groupInstanceId?, subscription }, got undefined',
    );
  });

  it('rejects a group too large to assign without exhausting memory', () => {
    const error = rejection(() =>
      validateAssignorInput({ partitionsPerTopic: { a: 2_000_000_000 } }, [ok('m', ['a'])]),
    );
    expect(error.message).toBe('partitionsPerTopic: total partition count 2000000000 exceeds the limit of 10000000');
  });

  it('ignores subscriptions to unknown topics by default and rejects them on request', () => {
    expect(() => validateAssignorInput({ partitionsPerTopic: {} }, [ok('a', ['ghost'])])).not.toThrow();
    const error = rejection(() =>
      validateAssignorInput({ partitionsPerTopic: {} }, [ok('a', ['ghost'])], { unknownTopics: 'reject' }),
    );
    expect(error.message).toBe("members[0].subscription.topics[0]: unknown topic 'ghost' (not in partitionsPerTopic)");
  });

  it('protects the built-in assignors: bad input is an error, not a wrong assignment', () => {
    const error = rejection(() => createRangeAssignor().assign({ partitionsPerTopic: { t: 2 } }, [ok('a'), ok('a')]));
    expect(error.errorName).toBe('INVALID_REQUEST');
  });

  describe('cooperative-sticky, which checks owned partitions as it reads them', () => {
    const cluster = { partitionsPerTopic: { t: 2 } };
    const owning = (memberId: string, ownedPartitions: unknown, extra: Record<string, unknown> = {}) => ({
      memberId,
      subscription: { topics: ['t'], ownedPartitions, ...extra },
    });
    it.each([
      ['a list that is not an array', [owning('a', 'x')]],
      // eslint-disable-next-line no-sparse-arrays -- a hole is the input under test
      ['a hole in the list', [owning('a', [, { topic: 't', partitions: [0] }])]],
      ['an entry that is an array', [owning('a', [['t', [0]]])]],
      ['an empty topic name', [owning('a', [{ topic: '', partitions: [0] }])]],
      ['partitions that are not an array', [owning('a', [{ topic: 't', partitions: 0 }])]],
      ['a fractional partition', [owning('a', [{ topic: 't', partitions: [0.5] }])]],
      ['a partition beyond int32', [owning('a', [{ topic: 't', partitions: [2 ** 31] }])]],
      ['a bad partition of a topic that does not take part', [owning('a', [{ topic: 'ghost', partitions: [-1] }])]],
      [
        "an earlier member's bad owned partition before a later bad member id",
        [owning('a', [{ topic: 't', partitions: ['0'] }]), owning('', [])],
      ],
      [
        "an earlier bad generation before a later member's bad owned partition",
        [owning('a', [], { generationId: 'x' }), owning('b', [{ topic: 't', partitions: [-1] }])],
      ],
      [
        'the first bad member in input order, not in the order members are read',
        [owning('b', [{ topic: 't', partitions: [-2] }]), owning('a', [{ topic: 't', partitions: [-1] }])],
      ],
    ])('rejects %s as validateAssignorInput does', (_label, members) => {
      const expected = rejection(() => validateAssignorInput(cluster, members));
      const error = rejection(() => createCooperativeStickyAssignor().assign(cluster, members as never));
      expect(error.errorCode).toBe(42);
      expect(error.message).toBe(expected.message);
    });

    it('accepts owned partitions of topics that do not take part, as validateAssignorInput does', () => {
      const members = [
        owning('a', [
          { topic: 'ghost', partitions: [7] },
          { topic: 't', partitions: [1, 5] },
        ]),
      ];
      expect(createCooperativeStickyAssignor().assign(cluster, members as never)).toEqual({
        a: { partitions: [{ topic: 't', partitions: [0, 1] }] },
      });
    });
  });
});
