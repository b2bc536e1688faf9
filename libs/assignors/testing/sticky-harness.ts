/**
 * The machinery of Kafka's AbstractStickyAssignorTest and its two subclasses, so the ported test cases
 * read like the originals: rack configurations, subscription builders for each protocol version,
 * Kafka's verifyValidityAndBalance (and the cooperative override that runs follow-up rebalances), and
 * access to partitionsTransferringOwnership and isSticky(), which are not part of the public API.
 */
import type { MemberAssignment, Subscription } from '@cohort/protocol';
import type { ClusterView, MemberSubscription } from '@cohort/assignors/api/partition-assignor';
import { readGroup } from '@cohort/assignors/common/group-input';
import { cooperativeMemberData, stickyMemberData } from '@cohort/assignors/sticky/member-data';
import { stickyAssign, withholdTransfers } from '@cohort/assignors/sticky/sticky-core';
import {
  ALL_RACKS,
  ClusterBuilder,
  flatAll,
  replicaRacksWithRackCount,
  topicPartitions,
  type RackConfig,
  SubscriptionMap,
} from './kafka-fixtures';
import { assignmentFromOwners } from '@cohort/assignors/common/assignment-output';

export type StickyKind = 'sticky' | 'cooperative-sticky';
export type Assignment = Record<string, string[]>;
export type Sub = Subscription & { groupInstanceId?: string | null };

export const DEFAULT_GENERATION = -1;

export class StickyHarness {
  generationId = 1;
  numBrokerRacks = 0;
  hasConsumerRack = false;
  replicationFactor = 2;
  preferRackAwareLogic = false;
  /** The assignor's own generation (CooperativeStickyAssignor.onAssignment), used in its user data. */
  private cooperativeGeneration = DEFAULT_GENERATION;
  private nextPartitionIndex = 0;
  partitionsTransferringOwnership: Record<string, string> | null = null;
  lastPath: 'constrained' | 'general' = 'constrained';
  private sticky = true;

  constructor(readonly kind: StickyKind) {}

  initializeRacks(config: RackConfig): void {
    this.replicationFactor = 3;
    this.numBrokerRacks = config !== 'NO_BROKER_RACK' ? 3 : 0;
    this.hasConsumerRack = config !== 'NO_CONSUMER_RACK';
    this.preferRackAwareLogic = true;
  }

  /** A fresh assignor (Kafka's createAssignor()). */
  reset(): void {
    this.cooperativeGeneration = DEFAULT_GENERATION;
  }

  cluster(): ClusterBuilder {
    return new ClusterBuilder();
  }

  /** AbstractStickyAssignorTest.partitionInfos: each call lays the topic out one broker further. */
  put(builder: ClusterBuilder, topic: string, partitions: number): ClusterBuilder {
    const nextIndex = this.nextPartitionIndex++;
    return builder.put(
      topic,
      partitions,
      replicaRacksWithRackCount(partitions, this.replicationFactor, this.numBrokerRacks, nextIndex),
    );
  }

  consumerRackId(consumerIndex: number): string | null {
    const numRacks = this.numBrokerRacks > 0 ? this.numBrokerRacks : ALL_RACKS.length;
    return this.hasConsumerRack && consumerIndex >= 0 ? ALL_RACKS[consumerIndex % numRacks] : null;
  }

  subscription(topics: string[], consumerIndex: number): Sub {
    return {
      topics: [...topics],
      ownedPartitions: [],
      generationId: DEFAULT_GENERATION,
      rackId: this.consumerRackId(consumerIndex),
    };
  }

  buildSubscriptionV2Above(
    topics: string[],
    partitions: readonly string[],
    generation: number,
    consumerIndex: number,
  ): Sub {
    const owned = topicPartitions(partitions);
    if (this.kind === 'sticky') {
      return {
        topics: [...topics],
        userData: { previousAssignment: owned, generation },
        ownedPartitions: owned,
        generationId: generation,
        rackId: null,
      };
    }
    return {
      topics: [...topics],
      userData: { generation: this.cooperativeGeneration },
      ownedPartitions: owned,
      generationId: generation,
      rackId: this.consumerRackId(consumerIndex),
    };
  }

  buildSubscriptionV1(topics: string[], partitions: readonly string[], generation: number): Sub {
    const owned = topicPartitions(partitions);
    if (this.kind === 'sticky') {
      return {
        topics: [...topics],
        userData: { previousAssignment: owned, generation },
        ownedPartitions: owned,
        generationId: DEFAULT_GENERATION,
        rackId: null,
      };
    }
    this.cooperativeGeneration = this.generationId;
    return {
      topics: [...topics],
      userData: { generation: this.cooperativeGeneration },
      ownedPartitions: owned,
      generationId: DEFAULT_GENERATION,
      rackId: null,
    };
  }

  /** Only the sticky assignor reads V0 subscriptions (no ownedPartitions field). */
  buildSubscriptionV0(topics: string[], partitions: readonly string[], generation: number, consumerIndex: number): Sub {
    return {
      topics: [...topics],
      userData: { previousAssignment: topicPartitions(partitions), generation },
      ownedPartitions: [],
      generationId: DEFAULT_GENERATION,
      rackId: this.consumerRackId(consumerIndex),
    };
  }

  /** StickyAssignor user data in the V0 schema (no generation). */
  buildSubscriptionWithOldSchema(topics: string[], partitions: readonly string[], consumerIndex: number): Sub {
    return {
      topics: [...topics],
      userData: { previousAssignment: topicPartitions(partitions) },
      ownedPartitions: [],
      generationId: DEFAULT_GENERATION,
      rackId: this.consumerRackId(consumerIndex),
    };
  }

  assignPartitions(cluster: ClusterView | ClusterBuilder, subscriptions: SubscriptionMap): Assignment {
    const view = cluster instanceof ClusterBuilder ? cluster.view() : cluster;
    return flatAll(this.assign(view, subscriptions.members()));
  }

  /** The same, shaped as the assignor's result (for verifyRackAssignment). */
  assign(view: ClusterView, members: MemberSubscription[]): Record<string, MemberAssignment> {
    const input = readGroup(view, members);
    const readData = this.kind === 'sticky' ? stickyMemberData : cooperativeMemberData;
    const outcome = stickyAssign(input, {
      preferRackAwareLogic: this.preferRackAwareLogic,
      memberData: (m) => readData(input.members[m].subscription),
    });
    this.lastPath = outcome.path;
    this.sticky = outcome.isSticky;
    const transferring =
      outcome.partitionsTransferringOwnership === null ? null : new Map(outcome.partitionsTransferringOwnership);
    if (this.kind === 'cooperative-sticky') withholdTransfers(input, outcome);
    const names = (id: number): string => {
      const { topics } = input;
      let t = 0;
      while (topics.base[t + 1] <= id) t++;
      return `${topics.names[t]}-${id - topics.base[t]}`;
    };
    this.partitionsTransferringOwnership =
      transferring === null
        ? null
        : Object.fromEntries([...transferring].map(([id, m]) => [names(id), input.members[m].memberId]));
    return assignmentFromOwners(input, outcome.owner);
  }

  isSticky(): boolean {
    return this.sticky;
  }

  /**
   * Kafka's verifyValidityAndBalance; for the cooperative assignor first the follow-up rebalances
   * (at most 4, each checking that no partition is revoked and assigned in one round), replacing the
   * caller's assignment with the converged one as Kafka's test does.
   */
  verifyValidityAndBalance(subscriptions: SubscriptionMap, assignment: Assignment, cluster: ClusterBuilder): void {
    if (this.kind === 'cooperative-sticky') {
      let rebalances = 0;
      while (verifyCooperativeValidity(subscriptions, assignment)) {
        for (const [consumer, partitions] of Object.entries(assignment)) {
          const old = subscriptions.get(consumer) as Sub;
          const rackIndex = old.rackId ? ALL_RACKS.indexOf(old.rackId) : -1;
          subscriptions.set(
            consumer,
            this.buildSubscriptionV2Above(old.topics, partitions, this.generationId, rackIndex),
          );
        }
        const next = this.assignPartitions(cluster, subscriptions);
        for (const key of Object.keys(assignment)) delete assignment[key];
        Object.assign(assignment, next);
        rebalances++;
        expect(rebalances).toBeLessThanOrEqual(4);
      }
    }
    verifyKafkaValidityAndBalance(subscriptions, assignment);
  }
}

/** Returns true when partitions are being revoked (a follow-up rebalance will happen). */
function verifyCooperativeValidity(subscriptions: SubscriptionMap, assignment: Assignment): boolean {
  const added = new Set<string>();
  const revoked = new Set<string>();
  for (const [consumer, partitions] of Object.entries(assignment)) {
    const owned = new Set(
      (subscriptions.get(consumer)?.ownedPartitions ?? []).flatMap((e) => e.partitions.map((p) => `${e.topic}-${p}`)),
    );
    const assigned = new Set(partitions);
    for (const tp of owned) if (!assigned.has(tp)) revoked.add(tp);
    for (const tp of assigned) if (!owned.has(tp)) added.add(tp);
  }
  const both = [...added].filter((tp) => revoked.has(tp));
  expect(both).toEqual([]);
  return revoked.size > 0;
}

/**
 * AbstractStickyAssignorTest.verifyValidityAndBalance, exact semantics: every assigned
 * partition's topic is subscribed, no partition is assigned twice, and two members whose sizes differ
 * by more than one share no topic. Violations are collected and asserted once, to keep it fast.
 */
export function verifyKafkaValidityAndBalance(subscriptions: SubscriptionMap, assignment: Assignment): void {
  expect(Object.keys(assignment).sort()).toEqual([...subscriptions.keys()].sort());
  const violations: string[] = [];
  const topicOf = (tp: string): string => tp.slice(0, tp.lastIndexOf('-'));
  const consumers = Object.keys(assignment).sort();
  const holder = new Map<string, string>();
  const topicsHeld = new Map<string, Set<string>>();
  for (const consumer of consumers) {
    const subscribed = new Set(subscriptions.get(consumer)?.topics ?? []);
    const held = new Set<string>();
    for (const tp of assignment[consumer]) {
      const topic = topicOf(tp);
      held.add(topic);
      if (!subscribed.has(topic))
        violations.push(`${tp} assigned to ${consumer}, which does not subscribe to ${topic}`);
      const other = holder.get(tp);
      if (other !== undefined) violations.push(`${tp} assigned to both ${other} and ${consumer}`);
      holder.set(tp, consumer);
    }
    topicsHeld.set(consumer, held);
  }
  for (let i = 0; i < consumers.length; i++) {
    for (let j = i + 1; j < consumers.length; j++) {
      const [a, b] = [consumers[i], consumers[j]];
      if (Math.abs(assignment[a].length - assignment[b].length) <= 1) continue;
      const other = topicsHeld.get(b) as Set<string>;
      for (const topic of topicsHeld.get(a) as Set<string>) {
        if (other.has(topic))
          violations.push(
            `${a} (${assignment[a].length}) and ${b} (${assignment[b].length}) both hold ${topic}: some partition could move for balance`,
          );
      }
    }
  }
  expect(violations).toEqual([]);
}

export function isFullyBalanced(assignment: Assignment): boolean {
  const sizes = Object.values(assignment).map((list) => list.length);
  return Math.max(...sizes) - Math.min(...sizes) <= 1;
}

/** Sorted "topic-p" list, for comparing with an assignment entry. */
export function ps(...partitions: string[]): string[] {
  return [...partitions].sort();
}

/** Kafka's getTopicName/getConsumerName: prefix + number zero-padded to the width of maxNum. */
export function canonicalName(prefix: string, i: number, maxNum: number): string {
  return prefix + String(i).padStart(String(maxNum).length, '0');
}

/** Stands in for java.util.Random in the randomized Kafka tests. */
export { seededRandom } from '@cohort/assignors/common/seeded-random';
