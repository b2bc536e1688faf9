// A member may subscribe to names no topic has (100,000 of them, in a hostile heartbeat). Kafka's
// assignors see only the topics that exist (`TopicIds` skips the names its metadata image lacks), yet
// the order they walk those topics in depends on every name (the sets they copy a subscription into
// are sized by `TopicIds.size()`). These check that the model looks names of no topic up but makes
// nothing of them (no topic id, no place), and still walks the topics that exist in Kafka's order.
import { javaStringHashCode, type TopicPartitions } from '@cohort/protocol';
import { seededRandom } from '../common/seeded-random';
import type { ConsumerGroupMemberSpec } from './consumer-group-assignor';
import {
  readGroupModel,
  subscribedTopicsInJavaOrder,
  topicIdsInJavaOrder,
  type GroupModel,
  type ModelMember,
} from './group-model';
import { copyConstructorCapacity, JavaHashTable, javaIterationOrder } from './java-hash-table';
import { topicIdOf } from './java-uuid';
import { KeptUniformGroup } from './kept-uniform-group';
import { uniformAssign } from './uniform-assignor';

const NOTHING = Object.freeze([]) as readonly TopicPartitions[];

/** Java's iteration order of `hashCodes` put one by one into a table made with `initialCapacity`. */
function chainOrder(hashCodes: readonly number[], initialCapacity: number): number[] {
  const table = new JavaHashTable(initialCapacity);
  for (const hash of hashCodes) table.insert(hash);
  return table.order();
}

function modelOf(names: readonly string[], partitionsPerTopic: Record<string, number>): GroupModel {
  const member: ConsumerGroupMemberSpec = { memberId: 'm', subscribedTopics: names, assignment: NOTHING };
  return readGroupModel({ members: [member] }, { partitionsPerTopic });
}

/** What `topicIdsInJavaOrder` must give: the member's names as `new HashSet<>(names)` walks them, topics only. */
function expectedTopicOrder(member: ModelMember, model: GroupModel): string[] {
  const names = [...new Set(member.spec.subscribedTopics)];
  const order = chainOrder(
    names.map((name) => javaStringHashCode(name)),
    copyConstructorCapacity(names.length),
  );
  return order.map((i) => names[i]).filter((name) => model.table.exists(name));
}

describe('names of topics that do not exist', () => {
  it('are looked up, but given no topic id and no place in the model', () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `missing-${i}`);
    names.splice(5000, 0, 'orders', 'audit');
    const idsMade: string[] = [];
    const model = readGroupModel(
      { members: [{ memberId: 'm', subscribedTopics: names, assignment: NOTHING }] },
      { partitionsPerTopic: { orders: 3, audit: 2, unrelated: 1 } },
      {
        topicId: (name) => {
          idsMade.push(name);
          return topicIdOf(name);
        },
      },
    );
    expect(idsMade).toEqual(['orders', 'audit']);
    expect(model.topics.map((topic) => topic.name)).toEqual(['orders', 'audit']);
    expect(model.members[0].subscribed).toEqual([0, 1]);
  });

  it('still size the sets Kafka walks the topics in, so the topics that exist come in the order all names give', () => {
    const random = seededRandom(848);
    for (let c = 0; c < 200; c++) {
      // Short lists too (tables under 64 buckets grow on a chain of nine, which all names count in), and
      // names sharing a bucket (a small alphabet), given twice, in any order.
      const count = [1 + random(30), 1 + random(400), 1 + random(5000)][random(3)];
      const alphabet = random(2) === 0 ? 'ab' : 'abcdefghijklmnopqrstuvwxyz';
      const names = Array.from({ length: count }, () =>
        Array.from({ length: 1 + random(6) }, () => alphabet[random(alphabet.length)]).join(''),
      );
      const partitionsPerTopic: Record<string, number> = {};
      for (const name of names) if (random(20) === 0) partitionsPerTopic[name] = 1 + random(4);
      const list = random(2) === 0 ? Object.freeze(names) : names;
      const model = modelOf(list, partitionsPerTopic);
      const member = model.members[0];
      const byName = topicIdsInJavaOrder(member, model.table).map((topic) => model.topics[topic].name);
      expect(byName).toEqual(expectedTopicOrder(member, model));
      // Kafka's homogeneous builder copies those ids into a set sized for every name.
      const ids = expectedTopicOrder(member, model).map((name) => model.topics[model.table.known(name)!]);
      const idOrder = chainOrder(
        ids.map((topic) => topic.idHash),
        copyConstructorCapacity(new Set(names).size),
      );
      expect(subscribedTopicsInJavaOrder(member, model.table).map((topic) => model.topics[topic].name)).toEqual(
        idOrder.map((i) => ids[i].name),
      );
    }
  });

  it('leave a table sized for them ordered by its chains, without making its buckets', () => {
    const random = seededRandom(27);
    for (let c = 0; c < 300; c++) {
      const capacity = 64 + random(20_000);
      const hashRange = [64, 1 << 12, 1 << 30][random(3)];
      const hashes = Array.from({ length: random(Math.floor(capacity / 64)) }, () => random(hashRange) * 16);
      expect(javaIterationOrder(hashes, capacity)).toEqual(chainOrder(hashes, capacity));
    }
  });

  it('are assigned nothing until a topic of that name is created, which a kept group then assigns', () => {
    const kept = new KeptUniformGroup({ minMembers: 1 });
    const names = Object.freeze(['orders', ...Array.from({ length: 2000 }, (_, i) => `later-${i}`)]);
    const members = ['a', 'b'].map((memberId) => ({ memberId, subscribedTopics: names, assignment: NOTHING }));
    const first = kept.assign({ members }, { partitionsPerTopic: { orders: 2 } });
    expect(Object.values(first).map((entries) => entries.map((entry) => entry.topic))).toEqual([
      ['orders'],
      ['orders'],
    ]);
    // The coordinator's next call: each member holds what it was given (frozen), and later-7 exists.
    const holding = members.map((member) => ({
      ...member,
      assignment: Object.freeze(
        first[member.memberId].map((entry) =>
          Object.freeze({ topic: entry.topic, partitions: Object.freeze([...entry.partitions]) as number[] }),
        ),
      ),
    }));
    // Unchanged, the kept model is patched rather than read again.
    kept.assign({ members: holding }, { partitionsPerTopic: { orders: 2 } });
    expect(kept.patchedCalls).toBe(1);
    const partitionsPerTopic = { orders: 2, 'later-7': 4 };
    const next = kept.assign({ members: holding }, { partitionsPerTopic: { ...partitionsPerTopic } });
    expect(next).toEqual(uniformAssign({ members: holding }, { partitionsPerTopic }));
    expect(
      Object.values(next)
        .flat()
        .filter((entry) => entry.topic === 'later-7'),
    ).not.toHaveLength(0);
  });
});
