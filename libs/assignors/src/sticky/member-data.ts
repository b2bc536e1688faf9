/**
 * Where each sticky assignor reads a member's previous partitions and generation from
 *, and the user data each one sends. Kafka's binary user data
 * becomes JSON here: StickyAssignor sends `{ previousAssignment, generation }`, CooperativeStickyAssignor
 * sends `{ generation }`.
 */
import type { Subscription, TopicPartitions } from '@cohort/protocol';

export interface MemberData {
  partitions: readonly TopicPartitions[];
  /** undefined: no generation known (Java's Optional.empty()). */
  generation: number | undefined;
}

export interface StickyUserData {
  previousAssignment: TopicPartitions[];
  generation?: number;
}

export interface CooperativeUserData {
  generation: number;
}

export const DEFAULT_GENERATION = -1;

/**
 * What a member that owns nothing reads as. It is made as a list of objects and then emptied, so it
 * has the hidden class of the entry lists that members send (a list read off the wire): code the JIT
 * compiled while reading owned partitions does not deoptimize at the first member that owns none,
 * as it does on a fresh `[]`. Shared, so never changed (readonly).
 */
const NO_PARTITIONS: readonly TopicPartitions[] = ((): TopicPartitions[] => {
  const list: (TopicPartitions | null)[] = [null];
  list.pop();
  return list as TopicPartitions[];
})();

/** The subscription's own generationId field: absent or negative means none (-1). */
export function fieldGeneration(subscription: Subscription): number {
  const generation = subscription.generationId;
  return typeof generation === 'number' && generation >= 0 ? generation : DEFAULT_GENERATION;
}

function isTopicPartitionsList(value: unknown): value is TopicPartitions[] {
  return (
    Array.isArray(value) &&
    value.every(
      (entry) =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof (entry as TopicPartitions).topic === 'string' &&
        Array.isArray((entry as TopicPartitions).partitions) &&
        (entry as TopicPartitions).partitions.every((p) => Number.isInteger(p) && p >= 0),
    )
  );
}

/**
 * StickyAssignor: previous partitions come only from the user data (V1 with generation, V0 without),
 * never from the subscription's ownedPartitions field, exactly as in Kafka. No user data means no
 * partitions and no generation; unreadable user data means no partitions and generation -1.
 */
export function stickyMemberData(subscription: Subscription): MemberData {
  const userData = subscription.userData;
  if (userData === undefined || userData === null) return { partitions: NO_PARTITIONS, generation: undefined };
  if (typeof userData === 'object' && isTopicPartitionsList((userData as StickyUserData).previousAssignment)) {
    const generation = (userData as StickyUserData).generation;
    return {
      partitions: (userData as StickyUserData).previousAssignment,
      generation: Number.isInteger(generation) ? generation : undefined,
    };
  }
  return { partitions: NO_PARTITIONS, generation: DEFAULT_GENERATION };
}

/**
 * CooperativeStickyAssignor: partitions are the subscription's ownedPartitions; the generation is the
 * subscription's generationId when present, else the one in the user data (absent without user data,
 * -1 when unreadable).
 */
export function cooperativeMemberData(subscription: Subscription): MemberData {
  const partitions = subscription.ownedPartitions ?? NO_PARTITIONS;
  const field = fieldGeneration(subscription);
  if (field >= 0) return { partitions, generation: field };
  const userData = subscription.userData;
  if (userData === undefined || userData === null) return { partitions, generation: undefined };
  if (typeof userData === 'number' && Number.isInteger(userData)) return { partitions, generation: userData };
  if (typeof userData === 'object' && Number.isInteger((userData as CooperativeUserData).generation)) {
    return { partitions, generation: (userData as CooperativeUserData).generation };
  }
  return { partitions, generation: DEFAULT_GENERATION };
}
