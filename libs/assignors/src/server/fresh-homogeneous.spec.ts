// A homogeneous group in which nobody holds anything is dealt run by run (fresh-homogeneous.ts), most
// runs without any log. Checked here against Kafka's UniformHomogeneousAssignmentBuilder followed step by
// step — every partition in the order of the topic set, dealt to the members in member order up to their
// quotas, each through computeIfAbsent(topic, new HashSet<>()).add(p) on the member's new HashMap<>(0) —
// with JavaHashTable (checked against java.util.HashMap in java-hash-table.oracle.spec.ts): runs that
// cross topics, partitions past 2^16, runs longer than 128, members left with nothing, empty topics.
import type { TopicPartitions } from '@cohort/protocol';
import { seededRandom } from '../common/seeded-random';
import type { ConsumerGroupMemberSpec } from './consumer-group-assignor';
import { readGroupModel, subscribedTopicsInJavaOrder, type GroupModel } from './group-model';
import { JavaHashTable } from './java-hash-table';
import { createUniformAssignor, uniformAssign } from './uniform-assignor';

/** Each member's new target as Kafka's builder makes it, in the order Java iterates it. */
function kafkaDeal(model: GroupModel): Map<string, TopicPartitions[]> {
  const topicOrder = subscribedTopicsInJavaOrder(model.members[0], model.table);
  const dealt: [number, number][] = [];
  for (const t of topicOrder) for (let p = 0; p < model.topics[t].partitions; p++) dealt.push([t, p]);
  const members = model.members.length;
  const minQuota = Math.floor(dealt.length / members);
  let extra = dealt.length % members;
  const result = new Map<string, TopicPartitions[]>();
  let next = 0;
  for (const member of model.members) {
    let quota = minQuota;
    if (extra > 0) {
      quota++;
      extra--;
    }
    if (quota === 0) {
      result.set(member.memberId, []);
      continue;
    }
    const map = new JavaHashTable(0);
    const topicOfHandle: number[] = [];
    const sets = new Map<number, { table: JavaHashTable; partitionOf: number[] }>();
    for (let i = 0; i < quota; i++, next++) {
      const [topic, partition] = dealt[next];
      let set = sets.get(topic);
      if (set === undefined) {
        topicOfHandle[map.computeIfAbsentInsert(model.topics[topic].idHash)] = topic;
        set = { table: new JavaHashTable(), partitionOf: [] };
        sets.set(topic, set);
      } else map.computeIfAbsentHit();
      set.partitionOf[set.table.insert(partition)] = partition;
    }
    result.set(
      member.memberId,
      map.order().map((handle) => {
        const set = sets.get(topicOfHandle[handle])!;
        return {
          topic: model.topics[topicOfHandle[handle]].name,
          partitions: set.table.order().map((h) => set.partitionOf[h]),
        };
      }),
    );
  }
  return result;
}

function group(memberCount: number, topics: string[]): ConsumerGroupMemberSpec[] {
  return Array.from({ length: memberCount }, (_, m) => ({
    memberId: `member-${m}`,
    subscribedTopics: topics,
    assignment: [],
  }));
}

function expectKafkasDeal(partitionsPerTopic: Record<string, number>, members: ConsumerGroupMemberSpec[]): void {
  const cluster = { partitionsPerTopic };
  const expected = kafkaDeal(readGroupModel({ members }, cluster));
  const assignor = createUniformAssignor();
  // Twice: the first call reads the group, the second may start from what the first kept.
  for (const result of [
    uniformAssign({ members }, cluster),
    assignor.assign({ members }, cluster),
    assignor.assign({ members }, cluster),
  ]) {
    expect(Object.keys(result).length).toBe(members.length);
    for (const member of members) expect(result[member.memberId]).toEqual(expected.get(member.memberId));
  }
}

describe('a homogeneous group in which nobody holds anything', () => {
  it('deals runs of one topic, runs crossing topics and empty topics as Kafka does', () => {
    expectKafkasDeal({ a: 1000, b: 0, c: 7, d: 333, e: 1 }, group(97, ['a', 'b', 'c', 'd', 'e', 'missing']));
  });

  it('deals partitions past 2^16 and runs longer than 128 as Kafka does', () => {
    expectKafkasDeal({ big: 70_000, small: 5 }, group(40, ['big', 'small']));
    expectKafkasDeal({ big: 70_000 }, group(5_000, ['big']));
  });

  it('leaves the members past the partitions with nothing', () => {
    expectKafkasDeal({ a: 3, b: 2 }, group(70, ['a', 'b']));
  });

  it('deals random groups as Kafka does', () => {
    const random = seededRandom(27);
    for (let round = 0; round < 40; round++) {
      const partitionsPerTopic: Record<string, number> = {};
      const topicCount = 1 + random(12);
      for (let t = 0; t < topicCount; t++)
        partitionsPerTopic[`topic-${round}-${t}`] = random(4) === 0 ? random(3) : random(2_000);
      expectKafkasDeal(partitionsPerTopic, group(64 + random(700), Object.keys(partitionsPerTopic)));
    }
  });
});
