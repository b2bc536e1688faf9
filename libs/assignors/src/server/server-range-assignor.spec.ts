// Kafka's RangeAssignorTest (group-coordinator module, org.apache.kafka.coordinator.group.assignor),
// every case, with Kafka's expected assignments. Kafka's test gives topics random ids, so its expected
// results hold for any ids; here ids are the name-based ones the server uses.
import type { TopicPartitions } from '@cohort/protocol';
import type { ConsumerGroupMemberSpec } from './consumer-group-assignor';
import { createServerRangeAssignor } from './server-range-assignor';

const assignor = createServerRangeAssignor();

function member(
  memberId: string,
  subscribedTopics: string[],
  assignment: TopicPartitions[] = [],
  instanceId: string | null = null,
): ConsumerGroupMemberSpec {
  return { memberId, instanceId, subscribedTopics, assignment };
}

/** Each member's assignment as topic → sorted partitions (Kafka compares maps of sets). */
function asSets(result: Record<string, TopicPartitions[]>): Record<string, Record<string, number[]>> {
  const out: Record<string, Record<string, number[]>> = {};
  for (const [memberId, entries] of Object.entries(result)) {
    out[memberId] = {};
    for (const { topic, partitions } of entries) out[memberId][topic] = [...partitions].sort((a, b) => a - b);
  }
  return out;
}

function assign(partitionsPerTopic: Record<string, number>, members: ConsumerGroupMemberSpec[]) {
  return asSets(assignor.assign({ members }, { partitionsPerTopic }));
}

describe('server range assignor (Kafka RangeAssignorTest)', () => {
  it('gives a member subscribed to no topic an empty assignment', () => {
    expect(assign({ topic1: 3 }, [member('A', [])])).toEqual({ A: {} });
  });

  it('gives a member subscribed only to a topic that does not exist nothing (Kafka throws; its coordinator never passes such a topic)', () => {
    expect(assign({ topic1: 3 }, [member('A', ['topic2'])])).toEqual({ A: {} });
  });

  it('splits each topic into contiguous ranges for two members with the same subscriptions', () => {
    expect(
      assign({ topic1: 3, topic3: 2 }, [member('A', ['topic1', 'topic3']), member('B', ['topic1', 'topic3'])]),
    ).toEqual({
      A: { topic1: [0, 1], topic3: [0] },
      B: { topic1: [2], topic3: [1] },
    });
  });

  it('gives each topic to its own subscribers when subscriptions differ', () => {
    const members = [member('A', ['topic1', 'topic2']), member('B', ['topic3']), member('C', ['topic2', 'topic3'])];
    expect(assign({ topic1: 3, topic2: 3, topic3: 2 }, members)).toEqual({
      A: { topic1: [0, 1, 2], topic2: [0, 1] },
      B: { topic3: [0] },
      C: { topic2: [2], topic3: [1] },
    });
  });

  it('leaves the last member without a partition of a topic with fewer partitions than members', () => {
    const members = ['A', 'B', 'C'].map((id) => member(id, ['topic1', 'topic3']));
    expect(assign({ topic1: 3, topic3: 2 }, members)).toEqual({
      A: { topic1: [0], topic3: [0] },
      B: { topic1: [1], topic3: [1] },
      C: { topic1: [2] },
    });
  });

  it('keeps a static member its partitions when it rejoins with a new member id', () => {
    const initial = assignor.assign(
      { members: [member('A', ['topic1'], [], 'instanceA'), member('B', ['topic1'], [], 'instanceB')] },
      { partitionsPerTopic: { topic1: 3 } },
    );
    const again = assignor.assign(
      { members: [member('B', ['topic1'], [], 'instanceB'), member('memberA1', ['topic1'], [], 'instanceA')] },
      { partitionsPerTopic: { topic1: 3 } },
    );
    expect(again.memberA1).toEqual(initial.A);
    expect(again.B).toEqual(initial.B);
  });

  it('keeps static members their partitions beside a dynamic member when one rejoins with a new member id', () => {
    const cluster = { partitionsPerTopic: { topic1: 5 } };
    const initial = assignor.assign(
      {
        members: [
          member('A', ['topic1'], [], 'instanceA'),
          member('C', ['topic1'], [], 'instanceC'),
          member('B', ['topic1']),
        ],
      },
      cluster,
    );
    const again = assignor.assign(
      {
        members: [
          member('C', ['topic1'], [], 'instanceC'),
          member('B', ['topic1']),
          member('memberA1', ['topic1'], [], 'instanceA'),
        ],
      },
      cluster,
    );
    expect(again.memberA1).toEqual(initial.A);
    expect(again.B).toEqual(initial.B);
    expect(again.C).toEqual(initial.C);
    expect(asSets(initial)).toEqual({ A: { topic1: [0, 1] }, C: { topic1: [2, 3] }, B: { topic1: [4] } });
  });

  it('gives a member joining a group with fewer partitions than members nothing', () => {
    const members = [
      member(
        'A',
        ['topic1', 'topic2'],
        [
          { topic: 'topic1', partitions: [0] },
          { topic: 'topic2', partitions: [0] },
        ],
      ),
      member(
        'B',
        ['topic1', 'topic2'],
        [
          { topic: 'topic1', partitions: [1] },
          { topic: 'topic2', partitions: [1] },
        ],
      ),
      member('C', ['topic1', 'topic2']),
    ];
    expect(assign({ topic1: 2, topic2: 2 }, members)).toEqual({
      A: { topic1: [0], topic2: [0] },
      B: { topic1: [1], topic2: [1] },
      C: {},
    });
  });

  it('extends the last range when a partition is added to each topic', () => {
    const members = [
      member(
        'A',
        ['topic1', 'topic2'],
        [
          { topic: 'topic1', partitions: [0, 1] },
          { topic: 'topic2', partitions: [0, 1] },
        ],
      ),
      member(
        'B',
        ['topic1', 'topic2'],
        [
          { topic: 'topic1', partitions: [2] },
          { topic: 'topic2', partitions: [2] },
        ],
      ),
    ];
    expect(assign({ topic1: 4, topic2: 4 }, members)).toEqual({
      A: { topic1: [0, 1], topic2: [0, 1] },
      B: { topic1: [2, 3], topic2: [2, 3] },
    });
  });

  it('gives a joining member its own range of every topic', () => {
    const members = [
      member(
        'A',
        ['topic1', 'topic2'],
        [
          { topic: 'topic1', partitions: [0, 1] },
          { topic: 'topic2', partitions: [0, 1] },
        ],
      ),
      member(
        'B',
        ['topic1', 'topic2'],
        [
          { topic: 'topic1', partitions: [2] },
          { topic: 'topic2', partitions: [2] },
        ],
      ),
      member('C', ['topic1', 'topic2']),
    ];
    expect(assign({ topic1: 3, topic2: 3 }, members)).toEqual({
      A: { topic1: [0], topic2: [0] },
      B: { topic1: [1], topic2: [1] },
      C: { topic1: [2], topic2: [2] },
    });
  });

  it('gives a member joining with a subscription of its own a range of that topic only, after a partition is added', () => {
    const members = [
      member(
        'A',
        ['topic1', 'topic2'],
        [
          { topic: 'topic1', partitions: [0, 1] },
          { topic: 'topic2', partitions: [0, 1] },
        ],
      ),
      member(
        'B',
        ['topic1', 'topic2'],
        [
          { topic: 'topic1', partitions: [2] },
          { topic: 'topic2', partitions: [2] },
        ],
      ),
      member('C', ['topic1']),
    ];
    expect(assign({ topic1: 4, topic2: 3 }, members)).toEqual({
      A: { topic1: [0, 1], topic2: [0, 1] },
      B: { topic1: [2], topic2: [2] },
      C: { topic1: [3] },
    });
  });

  it('gives the remaining member everything when the other leaves', () => {
    const members = [
      member(
        'B',
        ['topic1', 'topic2'],
        [
          { topic: 'topic1', partitions: [2] },
          { topic: 'topic2', partitions: [2] },
        ],
      ),
    ];
    expect(assign({ topic1: 3, topic2: 3 }, members)).toEqual({ B: { topic1: [0, 1, 2], topic2: [0, 1, 2] } });
  });

  it('follows changed subscriptions of three members', () => {
    const members = [
      member(
        'A',
        ['topic1'],
        [
          { topic: 'topic1', partitions: [0, 1, 2] },
          { topic: 'topic2', partitions: [0] },
        ],
      ),
      member('B', ['topic1', 'topic2', 'topic3'], [{ topic: 'topic2', partitions: [1] }]),
      member(
        'C',
        ['topic2'],
        [
          { topic: 'topic2', partitions: [2] },
          { topic: 'topic3', partitions: [0, 1] },
        ],
      ),
    ];
    expect(assign({ topic1: 3, topic2: 3, topic3: 2 }, members)).toEqual({
      A: { topic1: [0, 1] },
      B: { topic1: [2], topic2: [0, 1], topic3: [0, 1] },
      C: { topic2: [2] },
    });
  });
});
