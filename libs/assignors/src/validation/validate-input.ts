/**
 * Validation of what an assignor is given. Bad input gets a KafkaError INVALID_REQUEST whose message
 * names the offending field, instead of a wrong assignment or a crash deep inside an algorithm.
 */
import { INT32_MAX, INT32_MIN, KafkaError } from '@cohort/protocol';
import type { MemberSubscription } from '../api/partition-assignor';
import { sameList } from '../common/same-list';

// Read once here rather than at each use, which is a getter call per member (see common/group-input.ts).
const isSameList = sameList;
const MIN_INT32 = INT32_MIN;

export interface InputLimits {
  /** Sum of all partition counts; bounds the memory a single request can make us allocate. */
  maxTotalPartitions: number;
  maxMembers: number;
}

export const DEFAULT_INPUT_LIMITS: InputLimits = { maxTotalPartitions: 10_000_000, maxMembers: 100_000 };

export interface InputValidationOptions {
  /**
   * A subscription to a topic missing from partitionsPerTopic: Kafka ignores it (the topic may not
   * exist yet), which is the default; the REST dry run rejects it because there it is a typo.
   */
  unknownTopics?: 'ignore' | 'reject';
  limits?: Partial<InputLimits>;
}

function invalid(field: string, problem: string): KafkaError {
  return KafkaError.of('INVALID_REQUEST', `${field}: ${problem}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    const text = JSON.stringify(value);
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  } catch {
    return typeof value;
  }
}

function isPartitionIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= INT32_MAX;
}

function validateCluster(cluster: unknown, limits: InputLimits): Map<string, number> {
  if (!isPlainObject(cluster)) throw invalid('cluster', `must be an object, got ${describe(cluster)}`);
  const perTopic = cluster.partitionsPerTopic;
  if (!isPlainObject(perTopic))
    throw invalid('partitionsPerTopic', `must be an object of topic → partition count, got ${describe(perTopic)}`);
  const counts = new Map<string, number>();
  let total = 0;
  for (const [topic, count] of Object.entries(perTopic)) {
    if (topic.length === 0) throw invalid('partitionsPerTopic', 'topic names must be non-empty');
    if (!isPartitionIndex(count)) {
      throw invalid(
        `partitionsPerTopic.${topic}`,
        `partition count must be a non-negative integer, got ${describe(count)}`,
      );
    }
    total += count;
    counts.set(topic, count);
  }
  if (total > limits.maxTotalPartitions) {
    throw invalid(
      'partitionsPerTopic',
      `total partition count ${total} exceeds the limit of ${limits.maxTotalPartitions}`,
    );
  }
  validatePartitionRacks(cluster.partitionRacks, counts);
  return counts;
}

function validatePartitionRacks(racks: unknown, counts: Map<string, number>): void {
  if (racks === undefined || racks === null) return;
  if (!isPlainObject(racks))
    throw invalid('partitionRacks', `must be an object of topic → racks per partition, got ${describe(racks)}`);
  for (const [topic, perPartition] of Object.entries(racks)) {
    const count = counts.get(topic);
    if (count === undefined)
      throw invalid(`partitionRacks.${topic}`, `unknown topic '${topic}' (not in partitionsPerTopic)`);
    if (!Array.isArray(perPartition))
      throw invalid(`partitionRacks.${topic}`, `must be an array of rack lists, got ${describe(perPartition)}`);
    if (perPartition.length > count) {
      throw invalid(
        `partitionRacks.${topic}`,
        `has ${perPartition.length} entries but the topic has ${count} partitions`,
      );
    }
    perPartition.forEach((replicaRacks, partition) => {
      if (!Array.isArray(replicaRacks))
        throw invalid(
          `partitionRacks.${topic}[${partition}]`,
          `must be an array of rack names, got ${describe(replicaRacks)}`,
        );
      for (const rack of replicaRacks) {
        if (rack !== null && typeof rack !== 'string')
          throw invalid(
            `partitionRacks.${topic}[${partition}]`,
            `rack names must be strings or null, got ${describe(rack)}`,
          );
      }
    });
  }
}

/**
 * Large groups own a million entries between them and a rebalance validates every one, often as the
 * first call of a process, before the JIT has compiled anything: the checks below are plain loops
 * with no closures, and a field's name is built only for the error that names it.
 */
function ownedField(member: number): string {
  return `members[${member}].subscription.ownedPartitions`;
}

/** `owned` is neither undefined nor null (the caller checks, as most members of a fresh group send none). */
function validateOwnedPartitions(owned: unknown, member: number): void {
  if (!Array.isArray(owned))
    throw invalid(ownedField(member), `must be an array of { topic, partitions }, got ${describe(owned)}`);
  for (let index = 0; index < owned.length; index++) {
    const entry: unknown = owned[index];
    // isPlainObject, written out: this runs once per owned entry.
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw invalid(`${ownedField(member)}[${index}]`, `must be { topic, partitions }, got ${describe(entry)}`);
    const { topic, partitions } = entry as { topic?: unknown; partitions?: unknown };
    if (typeof topic !== 'string' || topic.length === 0)
      throw invalid(`${ownedField(member)}[${index}].topic`, `must be a non-empty string, got ${describe(topic)}`);
    if (!Array.isArray(partitions))
      throw invalid(
        `${ownedField(member)}[${index}].partitions`,
        `must be an array of partition numbers, got ${describe(partitions)}`,
      );
    for (let i = 0; i < partitions.length; i++) {
      const partition: unknown = partitions[i];
      // isPartitionIndex, written out: this runs once per owned partition. A number equal to its
      // int32 conversion is an integer from -2^31 to INT32_MAX.
      if (!(typeof partition === 'number' && (partition | 0) === partition && partition >= 0)) {
        throw invalid(
          `${ownedField(member)}[${index}].partitions`,
          `partition numbers must be integers from 0 to ${INT32_MAX}, got ${describe(partition)}`,
        );
      }
    }
  }
}

function validateTopicList(
  topics: unknown[],
  member: number,
  counts: Map<string, number>,
  options: InputValidationOptions,
): void {
  for (let topicIndex = 0; topicIndex < topics.length; topicIndex++) {
    const topic = topics[topicIndex];
    if (typeof topic !== 'string' || topic.length === 0) {
      throw invalid(
        `members[${member}].subscription.topics[${topicIndex}]`,
        `must be a non-empty string, got ${describe(topic)}`,
      );
    }
    if (options.unknownTopics === 'reject' && !counts.has(topic)) {
      throw invalid(
        `members[${member}].subscription.topics[${topicIndex}]`,
        `unknown topic '${topic}' (not in partitionsPerTopic)`,
      );
    }
  }
}

/** Topic lists already checked: by identity, and the last one checked by content (see sameList). */
interface CheckedTopicLists {
  readonly arrays: Set<unknown>;
  last: unknown[] | null;
}

function validateMember(
  member: unknown,
  index: number,
  counts: Map<string, number>,
  options: InputValidationOptions,
  checked: CheckedTopicLists,
  ownedPartitions: boolean,
): void {
  // isPlainObject, written out here and for the subscription: this runs once per member.
  if (typeof member !== 'object' || member === null || Array.isArray(member)) {
    throw invalid(`members[${index}]`, `must be { memberId, groupInstanceId?, subscription }, got ${describe(member)}`);
  }
  const {
    memberId,
    groupInstanceId: instanceId,
    subscription,
  } = member as { memberId?: unknown; groupInstanceId?: unknown; subscription?: unknown };
  if (typeof memberId !== 'string' || memberId.length === 0)
    throw invalid(`members[${index}].memberId`, `must be a non-empty string, got ${describe(memberId)}`);
  if (instanceId !== undefined && instanceId !== null && (typeof instanceId !== 'string' || instanceId.length === 0)) {
    throw invalid(
      `members[${index}].groupInstanceId`,
      `must be a non-empty string or null, got ${describe(instanceId)}`,
    );
  }
  if (typeof subscription !== 'object' || subscription === null || Array.isArray(subscription)) {
    throw invalid(`members[${index}].subscription`, `must be { topics, ... }, got ${describe(subscription)}`);
  }
  const {
    topics,
    ownedPartitions: owned,
    generationId: generation,
    rackId: rack,
  } = subscription as Record<string, unknown>;
  if (!Array.isArray(topics))
    throw invalid(`members[${index}].subscription.topics`, `must be an array of topic names, got ${describe(topics)}`);
  // Large groups share one topic list between many members: check each distinct array once, and a
  // list equal to the one checked last (each member's own copy, as read off the wire) not again.
  if (!isSameList(topics, checked.last) && !checked.arrays.has(topics)) {
    validateTopicList(topics, index, counts, options);
    checked.arrays.add(topics);
  }
  checked.last = topics;
  if (ownedPartitions && owned !== undefined && owned !== null) validateOwnedPartitions(owned, index);
  // An int32 other than INT32_MIN (|generation| <= INT32_MAX): a number equal to its int32 conversion.
  if (
    generation !== undefined &&
    generation !== null &&
    !(typeof generation === 'number' && (generation | 0) === generation && generation !== MIN_INT32)
  ) {
    throw invalid(`members[${index}].subscription.generationId`, `must be an int32, got ${describe(generation)}`);
  }
  if (rack !== undefined && rack !== null && typeof rack !== 'string') {
    throw invalid(`members[${index}].subscription.rackId`, `must be a string or null, got ${describe(rack)}`);
  }
}

/** Throws KafkaError INVALID_REQUEST naming the first bad field; returns normally when the input is usable. */
export function validateAssignorInput(
  cluster: unknown,
  members: unknown,
  options: InputValidationOptions = {},
): asserts members is MemberSubscription[] {
  checkInput(cluster, members, options, true);
}

/**
 * validateAssignorInput but for the owned partitions' lists, for an assignor that checks them as it
 * reads them (checkedPartitionIdsOf, then throwInvalidOwnedPartitions): a rejoining group lists
 * every partition there, and reading them once instead of twice is a good part of a process's first
 * rebalance. A failure here is reported as validateAssignorInput reports it, since an owned
 * partition of an earlier member may be what it names first.
 */
export function validateAssignorInputButOwnedPartitions(
  cluster: unknown,
  members: unknown,
  options: InputValidationOptions = {},
): asserts members is MemberSubscription[] {
  try {
    checkInput(cluster, members, options, false);
  } catch (error) {
    validateAssignorInput(cluster, members, options);
    throw error;
  }
}

/**
 * Throws what validateAssignorInput throws for input that validateAssignorInputButOwnedPartitions
 * passed and in which some member's owned partitions are bad: the first such member's first bad field.
 */
export function throwInvalidOwnedPartitions(
  members: readonly { readonly index: number; readonly subscription: { readonly ownedPartitions?: unknown } }[],
): never {
  const inOrder = [...members].sort((a, b) => a.index - b.index);
  for (const { index, subscription } of inOrder) {
    if (subscription.ownedPartitions !== undefined && subscription.ownedPartitions !== null)
      validateOwnedPartitions(subscription.ownedPartitions, index);
  }
  throw new Error('assignor internal error: owned partitions were read as invalid but validate');
}

function checkInput(
  cluster: unknown,
  members: unknown,
  options: InputValidationOptions,
  ownedPartitions: boolean,
): asserts members is MemberSubscription[] {
  const limits = { ...DEFAULT_INPUT_LIMITS, ...options.limits };
  const counts = validateCluster(cluster, limits);
  if (!Array.isArray(members)) throw invalid('members', `must be an array, got ${describe(members)}`);
  if (members.length > limits.maxMembers)
    throw invalid('members', `${members.length} members exceed the limit of ${limits.maxMembers}`);
  // A set, not a map to each id's index: one operation per member, and the index of the member a
  // duplicate repeats is looked up only for the error.
  const memberIds = new Set<string>();
  const instanceIds = new Map<string, number>();
  const checkedTopicLists: CheckedTopicLists = { arrays: new Set(), last: null };
  for (let index = 0; index < members.length; index++) {
    const member: unknown = members[index];
    validateMember(member, index, counts, options, checkedTopicLists, ownedPartitions);
    const { memberId, groupInstanceId } = member as MemberSubscription;
    // Every id so far was new (the first duplicate throws), so the set holds `index` ids before this one.
    if (memberIds.add(memberId).size === index) {
      const previous = (members as MemberSubscription[]).findIndex((other) => other.memberId === memberId);
      throw invalid(`members[${index}].memberId`, `duplicate member id '${memberId}' (also members[${previous}])`);
    }
    if (groupInstanceId) {
      const other = instanceIds.get(groupInstanceId);
      if (other !== undefined) {
        throw invalid(
          `members[${index}].groupInstanceId`,
          `duplicate group instance id '${groupInstanceId}' (also members[${other}])`,
        );
      }
      instanceIds.set(groupInstanceId, index);
    }
  }
}
