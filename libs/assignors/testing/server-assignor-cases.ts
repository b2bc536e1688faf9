/**
 * Helpers for the ports of Kafka's server assignor tests: groups written as Kafka's tests write them
 * (members A, B, C; topics topic1..topic4 with the tests' fixed ids) and results read as Kafka's
 * assertions compare them (topic → set of partitions).
 */
import type { TopicPartitions } from '@cohort/protocol';
import type { ConsumerGroupMemberSpec } from '@cohort/assignors/server/consumer-group-assignor';
import type { GroupModelOptions } from '@cohort/assignors/server/group-model';
import { uuidFromString, type JavaUuid } from '@cohort/assignors/server/java-uuid';

/** The topic ids of Kafka's UniformHomogeneous/HeterogeneousAssignmentBuilderTest. */
export const KAFKA_TEST_TOPIC_IDS: Record<string, JavaUuid> = {
  topic1: uuidFromString('T1-A4s3VTwiI5CTbEp6POw'),
  topic2: uuidFromString('T2-B4s3VTwiI5YHbPp6YUe'),
  topic3: uuidFromString('T3-CU8fVTLCz5YMkLoDQsa'),
  topic4: uuidFromString('T4-Tw9fVTLCz5HbPp6YQsa'),
};

/** Kafka's tests: a TreeMap of members (sorted ids), fixed topic ids, targets as `mkAssignment` builds them. */
export function kafkaTestOptions(overrides: GroupModelOptions = {}): GroupModelOptions {
  return {
    topicId: (name) => KAFKA_TEST_TOPIC_IDS[name] ?? uuidFromString('AAAAAAAAAAAAAAAAAAAAAA'),
    memberOrder: 'given',
    targetOrder: 'from-record',
    ...overrides,
  };
}

export function groupMember(
  memberId: string,
  subscribedTopics: string[],
  assignment: Record<string, number[]> = {},
  instanceId: string | null = null,
): ConsumerGroupMemberSpec {
  return {
    memberId,
    instanceId,
    subscribedTopics,
    assignment: Object.entries(assignment).map(([topic, partitions]) => ({ topic, partitions })),
  };
}

/** Each member's assignment as topic → ascending partitions. */
export function asSets(result: Record<string, TopicPartitions[]>): Record<string, Record<string, number[]>> {
  const out: Record<string, Record<string, number[]>> = {};
  for (const [memberId, entries] of Object.entries(result)) {
    out[memberId] = {};
    for (const { topic, partitions } of entries) out[memberId][topic] = [...partitions].sort((a, b) => a - b);
  }
  return out;
}

/**
 * Kafka's checkValidityAndBalance: every assigned topic subscribed, no partition twice, sizes within one.
 * Returns the problems found (none for a valid, balanced assignment).
 */
export function validityAndBalanceProblems(
  members: readonly ConsumerGroupMemberSpec[],
  result: Record<string, TopicPartitions[]>,
): string[] {
  const problems: string[] = [];
  const owner = new Map<string, string>();
  const sizes: number[] = [];
  for (const member of members) {
    let size = 0;
    for (const { topic, partitions } of result[member.memberId] ?? []) {
      if (!member.subscribedTopics.includes(topic)) problems.push(`${member.memberId} got ${topic} unsubscribed`);
      for (const p of partitions) {
        const key = `${topic}-${p}`;
        if (owner.has(key)) problems.push(`${key} given to ${owner.get(key)} and ${member.memberId}`);
        owner.set(key, member.memberId);
      }
      size += partitions.length;
    }
    sizes.push(size);
  }
  if (sizes.length > 0 && Math.max(...sizes) - Math.min(...sizes) > 1)
    problems.push(`sizes differ by more than one: ${Math.min(...sizes)}..${Math.max(...sizes)}`);
  return problems;
}
