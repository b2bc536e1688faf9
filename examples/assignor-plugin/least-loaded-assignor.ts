/**
 * An example assignor plugin: "least-loaded". Each member first keeps the partitions it already owns,
 * up to its fair share; then every remaining partition, in (topic, partition) order, goes to the
 * subscribed member that has the fewest partitions so far (ties broken by member id). It is eager
 * only: a partition may move from one member to another in one rebalance.
 *
 * It imports nothing at run time — only types from @cohort/assignors — so the module works wherever
 * the libs/assignors/README.md objects are passed in.
 */
import type { ClusterView, MemberAssignment, MemberSubscription, PartitionAssignor } from '@cohort/assignors';

export const leastLoadedAssignor: PartitionAssignor = {
  name: 'least-loaded',
  supportedProtocols: ['eager'],

  assign(cluster: ClusterView, members: MemberSubscription[]): Record<string, MemberAssignment> {
    // Work on members in member-id order so the result does not depend on the order of the input.
    const sorted = [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
    const assigned = new Map<string, Map<string, number[]>>(sorted.map((m) => [m.memberId, new Map()]));
    const load = new Map<string, number>(sorted.map((m) => [m.memberId, 0]));
    const taken = new Set<string>();
    const give = (memberId: string, topic: string, partition: number): void => {
      const byTopic = assigned.get(memberId)!;
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
      load.set(memberId, load.get(memberId)! + 1);
      taken.add(`${topic}\u0000${partition}`);
    };

    // Topics someone subscribes to that exist, and their partitions in order.
    const topics = [...new Set(sorted.flatMap((m) => m.subscription.topics))]
      .filter((t) => (cluster.partitionsPerTopic[t] ?? 0) > 0)
      .sort();
    const total = topics.reduce((sum, t) => sum + cluster.partitionsPerTopic[t], 0);
    const fairShare = Math.ceil(total / Math.max(1, sorted.length));

    // 1. Stickiness: keep owned partitions that still exist and are still subscribed, up to the fair share.
    for (const member of sorted) {
      for (const owned of member.subscription.ownedPartitions ?? []) {
        if (!member.subscription.topics.includes(owned.topic)) continue;
        for (const partition of owned.partitions) {
          const exists = partition < (cluster.partitionsPerTopic[owned.topic] ?? 0);
          if (exists && !taken.has(`${owned.topic}\u0000${partition}`) && load.get(member.memberId)! < fairShare)
            give(member.memberId, owned.topic, partition);
        }
      }
    }

    // 2. Everything else to the least-loaded subscriber.
    for (const topic of topics) {
      const subscribers = sorted.filter((m) => m.subscription.topics.includes(topic));
      for (let partition = 0; partition < cluster.partitionsPerTopic[topic]; partition++) {
        if (taken.has(`${topic}\u0000${partition}`)) continue;
        let best = subscribers[0];
        for (const candidate of subscribers)
          if (load.get(candidate.memberId)! < load.get(best.memberId)!) best = candidate;
        give(best.memberId, topic, partition);
      }
    }

    // Every member gets an entry, possibly empty (libs/assignors/README.md).
    const result: Record<string, MemberAssignment> = {};
    for (const member of sorted) {
      const partitions = [...assigned.get(member.memberId)!].map(([topic, list]) => ({
        topic,
        partitions: list.sort((a, b) => a - b),
      }));
      result[member.memberId] = { partitions };
    }
    return result;
  },
};

// A plugin module exports one assignor or an array of them, as the default export or as `assignors`.
export default leastLoadedAssignor;
