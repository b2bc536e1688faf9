import { newConsumerGroupMember, type ConsumerGroupMember } from '@cohort/coordinator/consumer/consumer-group-member';
import type { ConsumerGroupHeartbeatRequest } from '@cohort/coordinator/consumer/consumer-heartbeat.types';
import { MemberState } from '@cohort/coordinator/consumer/member-state';
import type { TopicPartitions } from '@cohort/coordinator/consumer/topic-partitions';
import {
  ConsumerGroupHarness,
  DEFAULT_CLIENT_HOST,
  DEFAULT_CLIENT_ID,
  MockConsumerAssignor,
} from './consumer-group-harness';

/**
 * The fixtures Kafka's GroupMetadataManagerTest consumer group cases share (group `fooup`, topics foo
 * and bar, the range assignor), for the specs that port them onto the virtual-clock harness.
 */
export const G = 'fooup';
export const TOPICS = { foo: 6, bar: 3 };

export function parts(byTopic: Record<string, number[]>): TopicPartitions {
  return new Map(Object.entries(byTopic).map(([topic, ps]) => [topic, new Set(ps)]));
}

export function member(memberId: string, fields: Partial<ConsumerGroupMember>): ConsumerGroupMember {
  return newConsumerGroupMember(memberId, {
    state: MemberState.STABLE,
    clientId: DEFAULT_CLIENT_ID,
    clientHost: DEFAULT_CLIENT_HOST,
    subscribedTopicNames: new Set(['foo', 'bar']),
    serverAssignorName: 'range',
    ...fields,
  });
}

export function join(
  memberId: string,
  extra: Partial<ConsumerGroupHeartbeatRequest> = {},
): ConsumerGroupHeartbeatRequest {
  return {
    groupId: G,
    memberId,
    memberEpoch: 0,
    rebalanceTimeoutMs: 5000,
    subscribedTopicNames: ['foo', 'bar'],
    serverAssignor: 'range',
    topicPartitions: [],
    ...extra,
  };
}

export function setup(topics: Record<string, number> = TOPICS) {
  const assignor = new MockConsumerAssignor('range');
  const h = new ConsumerGroupHarness({ assignors: [assignor], topics });
  return { h, assignor, now: h.clock.now() };
}

/** A group of two stable members at epoch 10 sharing foo and bar (Kafka's fixture in several cases). */
export function twoMemberGroup(
  h: ConsumerGroupHarness,
  fields: { m1?: Partial<ConsumerGroupMember>; m2?: Partial<ConsumerGroupMember> } = {},
) {
  const m1 = member('m1', {
    memberEpoch: 10,
    previousMemberEpoch: 9,
    rebalanceTimeoutMs: 5000,
    assignedPartitions: parts({ foo: [0, 1, 2], bar: [0, 1] }),
    ...fields.m1,
  });
  const m2 = member('m2', {
    memberEpoch: 10,
    previousMemberEpoch: 9,
    rebalanceTimeoutMs: 5000,
    assignedPartitions: parts({ foo: [3, 4, 5], bar: [2] }),
    ...fields.m2,
  });
  h.withGroup(G, 10, [m1, m2], { m1: m1.assignedPartitions, m2: m2.assignedPartitions }, 10);
  return { m1, m2 };
}
