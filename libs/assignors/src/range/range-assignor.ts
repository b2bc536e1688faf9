/**
 * Kafka's RangeAssignor ("range"), including KIP-881 rack awareness: per topic, consumers in member
 * order (static members by instance id first) each take a contiguous range; the first n mod c
 * consumers take one extra. When racks are known, partitions are first matched to consumers on a
 * replica's rack without giving up per-topic balance, and co-partitioned topics (same consumers, same
 * partition count) keep partition p of every topic on one consumer.
 */
import type { MemberAssignment } from '@cohort/protocol';
import type { ClusterView, MemberSubscription, PartitionAssignor } from '../api/partition-assignor';
import { assignmentFromOwners, emptyOwners } from '../common/assignment-output';
import { readGroup, type GroupInput } from '../common/group-input';
import { membersInKafkaOrder, subscriberLists } from '../common/member-order';
import type { RackAwareOptions } from '../common/rack-awareness';
import { RangeTopicState } from './range-topic-state';

export const RANGE_ASSIGNOR_NAME = 'range';

export function rangeAssign(input: GroupInput, options: RackAwareOptions = {}): Int32Array {
  const owner = emptyOwners(input);
  const order = membersInKafkaOrder(input.members);
  const rackOf = (m: number): string | null => input.members[m].rackId;
  const subscribers = subscriberLists(input, order);
  const states: RangeTopicState[] = [];
  for (let t = 0; t < input.topics.names.length; t++) {
    const consumers = subscribers[t].map((position) => order[position]);
    states.push(new RangeTopicState(t, input, consumers, rackOf, options.preferRackAwareLogic ?? false));
  }
  const assign = (state: RangeTopicState, consumer: number, partitions: number[]): void => {
    const base = input.topics.base[state.topic];
    for (const p of partitions) owner[base + p] = consumer;
    state.onAssigned(consumer, partitions);
  };
  if (states.some((state) => state.needsRackAwareAssignment)) assignWithRackMatching(states, assign);
  for (const state of states) assignRanges(state, assign);
  return owner;
}

type Assign = (state: RangeTopicState, consumer: number, partitions: number[]) => void;

function assignRanges(
  state: RangeTopicState,
  assign: Assign,
  mayAssign?: (consumer: number, partition: number) => boolean,
): void {
  for (const consumer of state.consumers) {
    if (!state.hasUnassigned) break;
    const accept = mayAssign ? (p: number) => mayAssign(consumer, p) : undefined;
    const partitions = state.takeable(state.maxAssignable(consumer), accept);
    if (partitions.length > 0) assign(state, consumer, partitions);
  }
}

/** Topics with the same consumers and partition count are co-partitioned; lone topics match racks alone. */
function assignWithRackMatching(states: RangeTopicState[], assign: Assign): void {
  const groups = new Map<string, RangeTopicState[]>();
  for (const state of states) {
    const key = `${state.consumers.join(',')}|${state.rackGroupSize}`;
    const group = groups.get(key);
    if (group) group.push(state);
    else groups.set(key, [state]);
  }
  for (const group of groups.values()) {
    if (group.length > 1) assignCoPartitioned(group, assign);
    else if (group[0].needsRackAwareAssignment) assignRanges(group[0], assign, (c, p) => group[0].racksMatch(c, p));
  }
}

function assignCoPartitioned(group: RangeTopicState[], assign: Assign): void {
  const remaining = [...group[0].consumers];
  const partitions = group[0].rackGroupSize;
  for (let p = 0; p < partitions && remaining.length > 0; p++) {
    const consumer = remaining.find((c) =>
      group.every((state) => state.racksMatch(c, p) && state.maxAssignable(c) > 0),
    );
    if (consumer === undefined) continue;
    for (const state of group) assign(state, consumer, [p]);
    if (group.every((state) => state.maxAssignable(consumer) <= 0)) remaining.splice(remaining.indexOf(consumer), 1);
  }
}

export function createRangeAssignor(options: RackAwareOptions = {}): PartitionAssignor {
  return {
    name: RANGE_ASSIGNOR_NAME,
    supportedProtocols: ['eager'],
    assign(cluster: ClusterView, members: MemberSubscription[]): Record<string, MemberAssignment> {
      const input = readGroup(cluster, members);
      return assignmentFromOwners(input, rangeAssign(input, options));
    },
  };
}
