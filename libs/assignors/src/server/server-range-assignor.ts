/**
 * Kafka's server-side `RangeAssignor` ("range", group-coordinator module): members sorted with static
 * members first by instance id, then the others by member id; for each topic, its subscribers in that
 * order each take a contiguous range, the first `partitions % subscribers` one more. It ignores the
 * current assignment and Java's hash orders, so its result is a function of ids and subscriptions alone.
 * Topics co-partition when members subscribe alike (the same ranges of every topic go to the same member).
 */
import type { TopicPartitions } from '@cohort/protocol';
import type { ClusterView } from '../api/partition-assignor';
import { compareStrings } from '../common/member-order';
import { setOwn } from '../common/own-property';
import type { ConsumerGroupAssignment, ConsumerGroupAssignor, ConsumerGroupSpec } from './consumer-group-assignor';
import { capacityForEntries, javaIterationOrder } from './java-hash-table';
import { readGroupModel, topicIdsInJavaOrder, type ModelMember } from './group-model';
import { distinctNameCount } from './subscription-size';

export const SERVER_RANGE_ASSIGNOR_NAME = 'range';

function compareMembers(a: ModelMember, b: ModelMember): number {
  if (a.instanceId !== null && b.instanceId !== null) return compareStrings(a.instanceId, b.instanceId);
  if (a.instanceId !== null) return -1;
  if (b.instanceId !== null) return 1;
  return compareStrings(a.memberId, b.memberId);
}

function ascending(start: number, end: number): number[] {
  const partitions = new Array<number>(end - start);
  for (let p = start; p < end; p++) partitions[p - start] = p;
  return partitions;
}

export function createServerRangeAssignor(): ConsumerGroupAssignor {
  return {
    name: SERVER_RANGE_ASSIGNOR_NAME,
    assign(group: ConsumerGroupSpec, cluster: ClusterView): ConsumerGroupAssignment {
      const model = readGroupModel(group, cluster);
      const { topics } = model;
      const sorted = model.members.slice().sort(compareMembers);
      const subscribers = new Int32Array(topics.length);
      for (const member of sorted) for (const t of member.subscribed) subscribers[t]++;
      const nextRange = new Int32Array(topics.length);
      const extra = topics.map((topic, t) => (subscribers[t] > 0 ? topic.partitions % subscribers[t] : 0));
      const result: ConsumerGroupAssignment = {};
      // Kafka walks the first member's topics for every member of a homogeneous group, each member's
      // own otherwise; the order decides where topics sharing a bucket of the result map go.
      const shared = model.homogeneous && sorted.length > 0 ? topicIdsInJavaOrder(sorted[0], model.table) : null;
      for (const member of sorted) {
        const entries: TopicPartitions[] = [];
        const hashes: number[] = [];
        const memberTopics = shared ?? topicIdsInJavaOrder(member, model.table);
        const mapSize = shared ? shared.length : distinctNameCount(member.spec.subscribedTopics);
        for (const t of memberTopics) {
          const size = topics[t].partitions;
          let quota = Math.floor(size / subscribers[t]);
          if (extra[t] > 0) {
            quota++;
            extra[t]--;
          }
          const start = nextRange[t];
          const end = Math.min(start + quota, size);
          nextRange[t] = end;
          if (start < end) {
            entries.push({ topic: topics[t].name, partitions: ascending(start, end) });
            hashes.push(topics[t].idHash);
          }
        }
        // Kafka's result map is a HashMap<Uuid, RangeSet> sized for the member's topics: its order is
        // the order the target's record lists the topics in.
        const ordered =
          entries.length < 2 ? entries : javaIterationOrder(hashes, capacityForEntries(mapSize)).map((i) => entries[i]);
        setOwn(result, member.memberId, ordered);
      }
      return result;
    },
  };
}
