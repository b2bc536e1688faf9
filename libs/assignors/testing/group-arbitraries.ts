/**
 * fast-check generators of consumer groups: topics with 0–12 partitions, members with distinct ids,
 * mixed or identical subscriptions (sometimes to a topic that does not exist), optional static
 * instance ids, optional racks with replica racks per partition.
 */
import fc from 'fast-check';
import type { ClusterView, MemberSubscription } from '@cohort/assignors/api/partition-assignor';

export interface GroupCase {
  cluster: ClusterView;
  members: MemberSubscription[];
}

const RACKS = ['a', 'b', 'c'];

export function groupArbitrary(
  options: { uniform?: boolean; racks?: boolean; maxMembers?: number; maxTopics?: number } = {},
): fc.Arbitrary<GroupCase> {
  const maxTopics = options.maxTopics ?? 5;
  return fc
    .record({
      counts: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: maxTopics }),
      ids: fc.uniqueArray(fc.stringMatching(/^[a-e][0-9]{0,2}$/), { minLength: 1, maxLength: options.maxMembers ?? 8 }),
      subscriptionSeeds: fc.array(fc.array(fc.boolean(), { minLength: maxTopics + 1, maxLength: maxTopics + 1 }), {
        minLength: 12,
        maxLength: 12,
      }),
      statics: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
      rackSeeds: fc.array(fc.option(fc.constantFrom(...RACKS)), { minLength: 12, maxLength: 12 }),
      replicaSeeds: fc.array(fc.subarray(RACKS, { minLength: 1 }), { minLength: 1, maxLength: 8 }),
    })
    .map(({ counts, ids, subscriptionSeeds, statics, rackSeeds, replicaSeeds }) => {
      const topics = counts.map((_, t) => `t${t}`);
      const partitionsPerTopic = Object.fromEntries(topics.map((t, i) => [t, counts[i]]));
      const cluster: ClusterView = { partitionsPerTopic };
      if (options.racks) {
        cluster.partitionRacks = Object.fromEntries(
          topics.map((t, i) => [
            t,
            Array.from({ length: counts[i] }, (_, p) => replicaSeeds[(i + p) % replicaSeeds.length]),
          ]),
        );
      }
      const pick = (seed: boolean[]): string[] => {
        const chosen = topics.filter((_, t) => seed[t]);
        if (seed[topics.length]) chosen.push('ghost');
        return chosen;
      };
      const uniformTopics = pick(subscriptionSeeds[0]);
      const members = ids.map((memberId, m) => ({
        memberId,
        groupInstanceId: statics[m] ? `instance-${memberId}` : null,
        subscription: {
          topics: options.uniform ? uniformTopics : pick(subscriptionSeeds[m % subscriptionSeeds.length]),
          rackId: options.racks ? rackSeeds[m] : null,
        },
      }));
      return { cluster, members };
    });
}

/** Members whose subscriptions now report `result` as owned, at one generation (Kafka's follow-up rebalance). */
export function withOwned(
  members: MemberSubscription[],
  result: Record<string, { partitions: { topic: string; partitions: number[] }[] }>,
  generationId: number,
): MemberSubscription[] {
  return members.map((m) => ({
    ...m,
    subscription: { ...m.subscription, ownedPartitions: result[m.memberId]?.partitions ?? [], generationId },
  }));
}
