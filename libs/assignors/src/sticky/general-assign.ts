/**
 * The sticky algorithm for members with different subscriptions (AbstractStickyAssignor
 * .GeneralAssignmentBuilder, KIP-54/KIP-341 with KAFKA-12675's data structures):
 * keep valid owned partitions, give each unassigned partition to the least-loaded subscriber, then
 * move partitions towards balance, preferring to hand a partition back to its previous-generation
 * owner, and keep the result only if it is more balanced than before. Same decisions as Kafka in the
 * same order; the speed comes from LoadIndex and integer partition ids.
 */
import { memberIdRanks } from '../common/member-order';
import { partitionIdsOf, topicOfPartitions, type GroupInput } from '../common/group-input';
import { javaStringHashCode } from '@cohort/protocol';
import { DEFAULT_GENERATION } from './member-data';
import type { OwnedPartitions } from './owned-partitions';
import { LoadIndex } from './load-index';
import { PartitionMovements, partitionHasher } from './partition-movements';
import type { StickyRackInfo } from './sticky-rack-info';
import { GeneralBalancer, keepIf } from './general-balancer';

export interface GeneralResult {
  owner: Int32Array;
  movements: PartitionMovements;
}

function subscribes(topics: Int32Array, topic: number): boolean {
  let lo = 0;
  let hi = topics.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (topics[mid] === topic) return true;
    if (topics[mid] < topic) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Members with the same subscription (and rack, when racks are used) share a heap in the LoadIndex. */
function buildClasses(
  input: GroupInput,
  rack: StickyRackInfo,
): { classOf: Int32Array; classesOfTopic: Int32Array[]; classRack: (string | null)[] } {
  const classOf = new Int32Array(input.members.length);
  const keys = new Map<string, number>();
  const classRack: (string | null)[] = [];
  const classTopics: Int32Array[] = [];
  input.members.forEach((member, m) => {
    const memberRack = rack.consumerRack[m];
    const key = `${memberRack ?? ''}\u0000${member.topics.join(',')}`;
    let c = keys.get(key);
    if (c === undefined) {
      c = classRack.length;
      keys.set(key, c);
      classRack.push(memberRack);
      classTopics.push(member.topics);
    }
    classOf[m] = c;
  });
  const lists: number[][] = input.topics.names.map(() => []);
  classTopics.forEach((topics, c) => {
    for (const t of topics) lists[t].push(c);
  });
  return { classOf, classesOfTopic: lists.map((list) => Int32Array.from(list)), classRack };
}

export function generalAssign(input: GroupInput, prep: OwnedPartitions, rack: StickyRackInfo): GeneralResult {
  const { topics, members } = input;
  const topicCount = topics.names.length;
  const topicOf = topicOfPartitions(topics);
  const consumersOfTopic = new Int32Array(topicCount);
  for (const member of members) for (const t of member.topics) consumersOfTopic[t]++;

  // Partitions ordered by (number of potential consumers of the topic, topic, partition).
  const topicOrder = Array.from({ length: topicCount }, (_, t) => t).sort(
    (a, b) => consumersOfTopic[a] - consumersOfTopic[b] || a - b,
  );
  const sortedAll = new Int32Array(topics.total);
  let fill = 0;
  for (const t of topicOrder) for (let id = topics.base[t]; id < topics.base[t + 1]; id++) sortedAll[fill++] = id;

  // Keep owned partitions the member still subscribes to (and, rack-aware, whose replicas are on its rack).
  const owner = new Int32Array(topics.total).fill(-1);
  const initialLoad = new Int32Array(members.length);
  let revocationRequired = false;
  prep.owned.forEach((ids, m) => {
    for (const id of ids) {
      if (!subscribes(members[m].topics, topicOf[id]) || rack.racksMismatch(m, id)) {
        revocationRequired = true;
      } else {
        owner[id] = m;
        initialLoad[m]++;
      }
    }
  });
  const unassigned = keepIf(sortedAll, (id) => owner[id] < 0);

  // Owners from older generations, to which a partition may be handed back (null: none).
  let prevMember: Int32Array | null = null;
  let prevGeneration: Int32Array | null = null;
  for (const m of prep.hashOrder) {
    const data = prep.memberData[m];
    let generation: number;
    if (data.generation !== undefined && data.generation < prep.maxGeneration) generation = data.generation;
    else if (data.generation === undefined && prep.maxGeneration > DEFAULT_GENERATION) generation = DEFAULT_GENERATION;
    else continue;
    const ids = partitionIdsOf(data.partitions, topics, false);
    if (ids.length === 0) continue;
    prevMember ??= new Int32Array(topics.total).fill(-1);
    prevGeneration ??= new Int32Array(topics.total);
    for (const id of ids) {
      if (prevMember[id] < 0 || generation > prevGeneration[id]) {
        prevMember[id] = m;
        prevGeneration[id] = generation;
      }
    }
  }

  const { classOf, classesOfTopic, classRack } = buildClasses(input, rack);
  const index = new LoadIndex(classOf, classesOfTopic, classRack, memberIdRanks(members), initialLoad, topics.total);
  const topicHashes = Int32Array.from(topics.names, javaStringHashCode);
  const movements = new PartitionMovements(
    topics.total,
    members.length,
    topicOf,
    partitionHasher(topicHashes, topicOf, topics.base),
  );
  const balancer = new GeneralBalancer({
    input,
    rack,
    index,
    owner,
    topicOf,
    consumersOfTopic,
    prevMember,
    movements,
    subscribes: (m, t) => subscribes(members[m].topics, t),
  });
  balancer.balance(unassigned, sortedAll, revocationRequired);
  return { owner, movements };
}
