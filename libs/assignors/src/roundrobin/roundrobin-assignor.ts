/**
 * Kafka's RoundRobinAssignor ("roundrobin"): all members in member order form a ring; the partitions
 * of all subscribed topics, in (topic, partition) order, are dealt around the ring, skipping members
 * that do not subscribe to the partition's topic. No racks, no stickiness, eager only.
 */
import type { MemberAssignment } from '@cohort/protocol';
import type { ClusterView, MemberSubscription, PartitionAssignor } from '../api/partition-assignor';
import { assignmentFromOwners, emptyOwners } from '../common/assignment-output';
import { readGroup, type GroupInput } from '../common/group-input';
import { membersInKafkaOrder, subscriberLists } from '../common/member-order';

export const ROUNDROBIN_ASSIGNOR_NAME = 'roundrobin';

export function roundRobinAssign(input: GroupInput): Int32Array {
  const owner = emptyOwners(input);
  const ring = membersInKafkaOrder(input.members);
  const subscribersOf = subscriberLists(input, ring);
  const subscribed = new Uint8Array(ring.length);
  let cursor = 0;
  for (let t = 0; t < input.topics.names.length; t++) {
    const base = input.topics.base[t];
    for (const position of subscribersOf[t]) subscribed[position] = 1;
    for (let p = 0; p < input.topics.counts[t]; p++) {
      // Every topic here has a subscriber, so this stops within one turn of the ring.
      while (subscribed[cursor] === 0) cursor = (cursor + 1) % ring.length;
      owner[base + p] = ring[cursor];
      cursor = (cursor + 1) % ring.length;
    }
    for (const position of subscribersOf[t]) subscribed[position] = 0;
  }
  return owner;
}

export function createRoundRobinAssignor(): PartitionAssignor {
  return {
    name: ROUNDROBIN_ASSIGNOR_NAME,
    supportedProtocols: ['eager'],
    assign(cluster: ClusterView, members: MemberSubscription[]): Record<string, MemberAssignment> {
      const input = readGroup(cluster, members);
      return assignmentFromOwners(input, roundRobinAssign(input));
    },
  };
}
