/**
 * Kafka's `UniformHeterogeneousAssignmentBuilder`: members subscribe to different topics. Partitions of
 * topics a member no longer subscribes to are revoked; the unowned partitions of each topic go, one by
 * one, to its least loaded subscriber; then each topic with two or more subscribers is rebalanced by
 * moving partitions from its most to its least loaded subscribers, topic after topic (at most 16 rounds)
 * until a round moves nothing. Topics go by partitions per subscriber (descending), then subscriber
 * count (ascending), then topic id (`Uuid.compareTo`); members by partition count, then member-map order.
 * The changes are logged per member (TargetLog) and read back in Java's order by the caller.
 *
 * Each step is a method of its own, each per-partition loop in a small one: a fresh process runs a
 * loop in the interpreter until V8 has compiled the function around it, and a small function
 * compiles sooner (and once: a loop inside one large function gets the whole function recompiled, then
 * thrown away at the next loop, whose types it had not seen).
 */
import { capacityForEntries as importedCapacityForEntries } from './java-hash-table';
import type { GroupModel, ModelMember, ModelTopic, TopicTable } from './group-model';
import { MemberBalancer } from './member-balancer';
import { TargetLog } from './member-target-log';

// Bound once: CommonJS output reads an imported name off its module at each use.
const capacityForEntries = importedCapacityForEntries;

const MAX_ITERATION_COUNT = 16;

/** The group's changes, or null when no member subscribes to a topic that exists (all get nothing). */
export function assignHeterogeneous(model: GroupModel): TargetLog | null {
  const builder = new HeterogeneousBuilder(model.members, model.topics, model.table);
  return builder.log === null ? null : builder.build();
}

class HeterogeneousBuilder {
  /** Each topic's subscribers in member order: [subscriberStart[t], subscriberStart[t + 1]) of subscriberList. */
  private readonly subscriberStart: Int32Array;
  private readonly subscriberList: Int32Array;
  /** Topics with a subscriber, ascending. */
  private readonly subscribedTopics: number[] = [];
  /** Per subscribed topic, per partition: the member it is assigned to, -1 for none. */
  private readonly owners: Int32Array[];
  /** Partitions assigned to each member. */
  private readonly sizes: Int32Array;
  private readonly balancer: MemberBalancer;
  /** Null when no member subscribes to a topic that exists. */
  readonly log: TargetLog | null = null;
  // balanceTopic's scratch: a topic's partitions grouped by owner, each owner's run ascending,
  // [runStart[m], runEnd[m]) of grouped.
  private readonly runStart: Int32Array;
  private readonly runEnd: Int32Array;
  private grouped = new Int32Array(0);

  constructor(
    private readonly members: readonly ModelMember[],
    private readonly topics: readonly ModelTopic[],
    private readonly table: TopicTable,
  ) {
    const memberCount = members.length;
    const topicCount = topics.length;
    this.subscriberStart = new Int32Array(topicCount + 1);
    this.subscriberList = this.indexSubscribers();
    this.owners = new Array<Int32Array>(topicCount);
    this.sizes = new Int32Array(memberCount);
    this.balancer = new MemberBalancer(this.sizes);
    this.runStart = new Int32Array(memberCount);
    this.runEnd = new Int32Array(memberCount);
    const newSetCapacity = new Int32Array(topicCount).fill(-1);
    let total = 0;
    for (let t = 0; t < topicCount; t++) {
      const count = this.subscriberCount(t);
      if (count === 0) continue;
      this.subscribedTopics.push(t);
      const partitions = topics[t].partitions;
      newSetCapacity[t] = capacityForEntries(Math.floor((partitions + count - 1) / count));
      this.owners[t] = new Int32Array(partitions).fill(-1);
      total += partitions;
    }
    if (this.subscribedTopics.length === 0) return;
    // Every partition is added once, and a few are moved (a remove and an add). Partitions go to the
    // members in turn, so each member's ops get runs of their own (read back member after member).
    const chunk = Math.min(64, Math.ceil(total / memberCount) + 4);
    this.log = new TargetLog(memberCount, newSetCapacity, Math.max(2 * total, memberCount * chunk) + 16, chunk);
  }

  build(): TargetLog {
    const log = this.log as TargetLog;
    this.revokePartitions(log);
    const withUnassigned = this.subscribedTopics.filter((t) => this.owners[t].includes(-1));
    this.sortTopics(withUnassigned);
    for (let i = 0; i < withUnassigned.length; i++) this.assignRemainingPartitions(withUnassigned[i], log);
    const movable = this.subscribedTopics.filter((t) => this.subscriberCount(t) >= 2);
    this.sortTopics(movable);
    if (movable.length === 0) return log;
    let lastRebalanceTopicIndex = -1;
    for (let i = 0; i < MAX_ITERATION_COUNT; i++) {
      for (let index = 0; index < movable.length; index++) {
        if (index === lastRebalanceTopicIndex) return log;
        const moved = this.balanceTopic(movable[index], log);
        if (moved > 0 || lastRebalanceTopicIndex === -1) lastRebalanceTopicIndex = index;
      }
    }
    return log;
  }

  private subscriberCount(t: number): number {
    return this.subscriberStart[t + 1] - this.subscriberStart[t];
  }

  // Indexed loops, not for-of: a fresh process runs these in the interpreter, where an iterator per
  // member costs more than the loop's work.
  private indexSubscribers(): Int32Array {
    const { members, subscriberStart } = this;
    const memberCount = members.length;
    const topicCount = subscriberStart.length - 1;
    for (let m = 0; m < memberCount; m++) {
      const subscribed = members[m].subscribed;
      for (let i = 0; i < subscribed.length; i++) subscriberStart[subscribed[i] + 1]++;
    }
    for (let t = 0; t < topicCount; t++) subscriberStart[t + 1] += subscriberStart[t];
    const subscriberList = new Int32Array(subscriberStart[topicCount]);
    const fill = subscriberStart.slice(0, topicCount);
    for (let m = 0; m < memberCount; m++) {
      const subscribed = members[m].subscribed;
      for (let i = 0; i < subscribed.length; i++) subscriberList[fill[subscribed[i]]++] = m;
    }
    return subscriberList;
  }

  private sortTopics(list: number[]): void {
    const { topics, table, subscriberStart } = this;
    list.sort((a, b) => {
      const countA = subscriberStart[a + 1] - subscriberStart[a];
      const countB = subscriberStart[b + 1] - subscriberStart[b];
      const perSubscriberA = topics[a].partitions / countA;
      const perSubscriberB = topics[b].partitions / countB;
      if (perSubscriberA !== perSubscriberB) return perSubscriberB < perSubscriberA ? -1 : 1;
      return countA - countB || table.compare(a, b);
    });
  }

  /** maybeRevokePartitions. subscribedBy[t] is m + 1 while member m's own topics are looked up. */
  private revokePartitions(log: TargetLog): void {
    const { members, owners, sizes } = this;
    const subscribedBy = new Int32Array(this.topics.length);
    for (let m = 0; m < members.length; m++) {
      const { owned, subscribed } = members[m];
      if (owned.length === 0) continue;
      for (let i = 0; i < subscribed.length; i++) subscribedBy[subscribed[i]] = m + 1;
      for (let i = 0; i < owned.length; i++) {
        const { topic, partitions } = owned[i];
        if (subscribedBy[topic] === m + 1) {
          sizes[m] += partitions.length;
          const owner = owners[topic];
          for (let k = 0; k < partitions.length; k++) owner[partitions[k]] = m;
        } else {
          log.removeTopic(m, topic);
        }
      }
    }
  }

  /** The topic's unowned partitions, in turn, to its least loaded subscribers (nothing to take back). */
  private assignRemainingPartitions(topic: number, log: TargetLog): void {
    const { balancer, sizes } = this;
    balancer.initialize(this.subscriberList, this.subscriberStart[topic], this.subscriberStart[topic + 1]);
    const owner = this.owners[topic];
    const count = owner.length;
    for (let p = 0; p < count; p++) {
      if (owner[p] !== -1) continue;
      const m = balancer.nextLeastLoadedMember();
      log.add(m, topic, p);
      owner[p] = m;
      sizes[m]++;
    }
  }

  /** Moves the topic's partitions from its most to its least loaded subscribers; returns how many. */
  private balanceTopic(topic: number, log: TargetLog): number {
    const { balancer, subscriberList, runStart, runEnd, sizes } = this;
    const from = this.subscriberStart[topic];
    const to = this.subscriberStart[topic + 1];
    if (balancer.initialize(subscriberList, from, to) <= 1) return 0;
    const owner = this.owners[topic];
    const grouped = this.groupByOwner(owner, from, to);
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
      // assignPartition: the partition is the most loaded member's.
      log.remove(mostLoaded, topic, partition);
      sizes[mostLoaded]--;
      log.add(leastLoaded, topic, partition);
      owner[partition] = leastLoaded;
      sizes[leastLoaded]++;
      moved++;
    }
    return moved;
  }

  /**
   * The topic's partitions grouped by owner (subscriberList[from, to)), each owner's run ascending:
   * a counting sort, every partition being owned by a subscriber by now.
   */
  private groupByOwner(owner: Int32Array, from: number, to: number): Int32Array {
    const { subscriberList, runStart, runEnd } = this;
    const count = owner.length;
    if (this.grouped.length < count) this.grouped = new Int32Array(count);
    const grouped = this.grouped;
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
    return grouped;
  }
}
