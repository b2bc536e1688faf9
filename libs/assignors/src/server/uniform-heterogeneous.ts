/**
 * Kafka's `UniformHeterogeneousAssignmentBuilder`: members subscribe to different topics. Partitions of
 * topics a member no longer subscribes to are revoked; the unowned partitions of each topic go, one by
 * one, to its least loaded subscriber; then each topic with two or more subscribers is rebalanced by
 * moving partitions from its most to its least loaded subscribers, topic after topic (at most 16 rounds)
 * until a round moves nothing. Topics go by partitions per subscriber (descending), then subscriber
 * count (ascending), then topic id (`Uuid.compareTo`); members by partition count, then member-map order.
 * The changes are logged per member (TargetLog) and read back in Java's order by the caller.
 */
import { capacityForEntries } from './java-hash-table';
import type { GroupModel } from './group-model';
import { MemberBalancer } from './member-balancer';
import { TargetLog } from './member-target-log';

const MAX_ITERATION_COUNT = 16;

/** The group's changes, or null when no member subscribes to a topic that exists (all get nothing). */
export function assignHeterogeneous(model: GroupModel): TargetLog | null {
  const { members, topics, table } = model;
  const memberCount = members.length;
  const topicCount = topics.length;

  // Each topic's subscribers in member order: [subscriberStart[t], subscriberStart[t + 1]) of subscriberList.
  const subscriberStart = new Int32Array(topicCount + 1);
  for (let m = 0; m < memberCount; m++) for (const t of members[m].subscribed) subscriberStart[t + 1]++;
  for (let t = 0; t < topicCount; t++) subscriberStart[t + 1] += subscriberStart[t];
  const subscriberList = new Int32Array(subscriberStart[topicCount]);
  const fill = subscriberStart.slice(0, topicCount);
  for (let m = 0; m < memberCount; m++) for (const t of members[m].subscribed) subscriberList[fill[t]++] = m;
  const subscriberCount = (t: number): number => subscriberStart[t + 1] - subscriberStart[t];

  const subscribedTopics: number[] = [];
  const newSetCapacity = new Int32Array(topicCount).fill(-1);
  const owners: (Int32Array | null)[] = new Array<Int32Array | null>(topicCount).fill(null);
  let total = 0;
  for (let t = 0; t < topicCount; t++) {
    const count = subscriberCount(t);
    if (count === 0) continue;
    subscribedTopics.push(t);
    const partitions = topics[t].partitions;
    newSetCapacity[t] = capacityForEntries(Math.floor((partitions + count - 1) / count));
    owners[t] = new Int32Array(partitions).fill(-1);
    total += partitions;
  }
  if (subscribedTopics.length === 0) return null;

  const sizes = new Int32Array(memberCount);
  // Every partition is added once, and a few are moved (a remove and an add).
  const log = new TargetLog(memberCount, newSetCapacity, 2 * total + 16);

  const compareTopics = (a: number, b: number): number => {
    const perSubscriberA = topics[a].partitions / subscriberCount(a);
    const perSubscriberB = topics[b].partitions / subscriberCount(b);
    if (perSubscriberA !== perSubscriberB) return perSubscriberB < perSubscriberA ? -1 : 1;
    return subscriberCount(a) - subscriberCount(b) || table.compare(a, b);
  };

  // maybeRevokePartitions. subscribedBy[t] is m + 1 while member m's own topics are looked up.
  const subscribedBy = new Int32Array(topicCount);
  for (let m = 0; m < memberCount; m++) {
    const { owned, subscribed } = members[m];
    if (owned.length === 0) continue;
    for (let i = 0; i < subscribed.length; i++) subscribedBy[subscribed[i]] = m + 1;
    for (let i = 0; i < owned.length; i++) {
      const { topic, partitions } = owned[i];
      if (subscribedBy[topic] === m + 1) {
        sizes[m] += partitions.length;
        const owner = owners[topic] as Int32Array;
        for (let k = 0; k < partitions.length; k++) owner[partitions[k]] = m;
      } else {
        log.removeTopic(m, topic);
      }
    }
  }

  const assignPartition = (topic: number, partition: number, m: number): void => {
    const owner = owners[topic] as Int32Array;
    const previous = owner[partition];
    if (previous !== -1) {
      log.remove(previous, topic, partition);
      sizes[previous]--;
    }
    log.add(m, topic, partition);
    owner[partition] = m;
    sizes[m]++;
  };

  const balancer = new MemberBalancer(sizes);

  // assignRemainingPartitions
  const withUnassigned = subscribedTopics.filter((t) => (owners[t] as Int32Array).includes(-1)).sort(compareTopics);
  for (const t of withUnassigned) {
    balancer.initialize(subscriberList, subscriberStart[t], subscriberStart[t + 1]);
    const owner = owners[t] as Int32Array;
    const count = owner.length;
    for (let p = 0; p < count; p++) if (owner[p] === -1) assignPartition(t, p, balancer.nextLeastLoadedMember());
  }

  // balance
  const movable = subscribedTopics.filter((t) => subscriberCount(t) >= 2).sort(compareTopics);
  if (movable.length === 0) return log;
  // A topic's partitions grouped by owner, each owner's run ascending: [runStart[m], runEnd[m]).
  const runStart = new Int32Array(memberCount);
  const runEnd = new Int32Array(memberCount);
  let grouped = new Int32Array(0);

  const balanceTopic = (topic: number): number => {
    const from = subscriberStart[topic];
    const to = subscriberStart[topic + 1];
    if (balancer.initialize(subscriberList, from, to) <= 1) return 0;
    const owner = owners[topic] as Int32Array;
    const count = owner.length;
    if (grouped.length < count) grouped = new Int32Array(count);
    // Every partition is owned by a subscriber by now: a counting sort by owner.
    for (let i = from; i < to; i++) runEnd[subscriberList[i]] = 0;
    for (let p = 0; p < count; p++) runEnd[owner[p]]++;
    let offset = 0;
    for (let i = from; i < to; i++) {
      const m = subscriberList[i];
      runStart[m] = offset;
      offset += runEnd[m];
      runEnd[m] = runStart[m];
    }
    for (let p = 0; p < count; p++) grouped[runEnd[owner[p]]++] = p;

    let moved = 0;
    while (!balancer.isBalanced()) {
      let mostLoaded = -1;
      for (;;) {
        mostLoaded = balancer.nextMostLoadedMember();
        if (mostLoaded === -1) break;
        if (runEnd[mostLoaded] - runStart[mostLoaded] <= 0) {
          balancer.excludeMostLoadedMember();
          continue;
        }
        break;
      }
      if (mostLoaded === -1) break;
      const partition = grouped[--runEnd[mostLoaded]];
      const leastLoaded = balancer.nextLeastLoadedMember();
      if (balancer.isBalanced()) break;
      assignPartition(topic, partition, leastLoaded);
      moved++;
    }
    return moved;
  };

  let lastRebalanceTopicIndex = -1;
  for (let i = 0; i < MAX_ITERATION_COUNT; i++) {
    for (let index = 0; index < movable.length; index++) {
      if (index === lastRebalanceTopicIndex) return log;
      const moved = balanceTopic(movable[index]);
      if (moved > 0 || lastRebalanceTopicIndex === -1) lastRebalanceTopicIndex = index;
    }
  }
  return log;
}
