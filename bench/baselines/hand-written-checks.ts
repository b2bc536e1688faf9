/**
 * The baseline of request-checks.bench.ts: the hand-written checks of Heartbeat and OffsetCommit that
 * src/gateway/lean/fast-accept.ts held until they were replaced by checks compiled from the DTOs
 * (src/gateway/contract). Kept verbatim, only here, so the compiled checks are timed against them in one process.
 */
import type { HeartbeatRequest, OffsetCommitPartition, OffsetCommitRequest, OffsetCommitTopic } from '@cohort/protocol';
import { INT32_MAX, INT32_MIN, MAX_ID_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';

export function acceptHeartbeat(value: unknown): HeartbeatRequest | null {
  if (!hasOnlyKeys(value, MEMBER_KEYS)) return null;
  const { groupId, generationId, memberId, groupInstanceId } = value;
  if (
    !isId(groupId) ||
    !isInt(generationId, INT32_MIN, INT32_MAX) ||
    !isId(memberId) ||
    !isOptionalInstanceId(groupInstanceId)
  )
    return null;
  return withDefined({ groupId, generationId, memberId }, 'groupInstanceId', groupInstanceId);
}

export function acceptOffsetCommit(value: unknown): OffsetCommitRequest | null {
  if (!hasOnlyKeys(value, COMMIT_KEYS)) return null;
  const { groupId, generationId, memberId, groupInstanceId, topics } = value;
  if (
    !isId(groupId) ||
    !isInt(generationId, INT32_MIN, INT32_MAX) ||
    !isOptional(memberId, isId) ||
    !isOptionalInstanceId(groupInstanceId)
  )
    return null;
  if (!Array.isArray(topics)) return null;
  const accepted: OffsetCommitTopic[] = [];
  for (const topic of topics as unknown[]) {
    const t = acceptCommitTopic(topic);
    if (t === null) return null;
    accepted.push(t);
  }
  const request: OffsetCommitRequest = { groupId, generationId, topics: accepted };
  return withDefined(withDefined(request, 'memberId', memberId), 'groupInstanceId', groupInstanceId);
}

function acceptCommitTopic(topic: unknown): OffsetCommitTopic | null {
  if (!hasOnlyKeys(topic, COMMIT_TOPIC_KEYS) || !isTopicName(topic.name) || !Array.isArray(topic.partitions))
    return null;
  const partitions: OffsetCommitPartition[] = [];
  for (const p of topic.partitions as unknown[]) {
    if (!hasOnlyKeys(p, COMMIT_PARTITION_KEYS)) return null;
    const { partitionIndex, committedOffset, committedLeaderEpoch, committedMetadata } = p;
    if (!isInt(partitionIndex, 0, INT32_MAX) || !isInt(committedOffset, 0, Number.MAX_SAFE_INTEGER)) return null;
    if (
      !isOptional(committedLeaderEpoch, (v) => isInt(v, -1, INT32_MAX)) ||
      !isOptional(committedMetadata, (v) => typeof v === 'string')
    )
      return null;
    const partition: OffsetCommitPartition = { partitionIndex, committedOffset };
    partitions.push(
      withDefined(
        withDefined(partition, 'committedLeaderEpoch', committedLeaderEpoch),
        'committedMetadata',
        committedMetadata,
      ),
    );
  }
  return { name: topic.name, partitions };
}

const MEMBER_KEYS = new Set(['groupId', 'generationId', 'memberId', 'groupInstanceId']);
const COMMIT_KEYS = new Set(['groupId', 'generationId', 'memberId', 'groupInstanceId', 'topics']);
const COMMIT_TOPIC_KEYS = new Set(['name', 'partitions']);
const COMMIT_PARTITION_KEYS = new Set([
  'partitionIndex',
  'committedOffset',
  'committedLeaderEpoch',
  'committedMetadata',
]);
/** A JSON object (plain prototype) with no key outside `keys`, so whitelisting would strip nothing. */
function hasOnlyKeys(value: unknown, keys: ReadonlySet<string>): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) if (!keys.has(key)) return false;
  return true;
}

function isInt(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** A string of at most `max` UTF-16 units, which class-validator's MaxLength (counting code points) also accepts. */
function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_ID_LENGTH;
}

function isTopicName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_TOPIC_NAME_LENGTH;
}

/**
 * @IsOptional @MinLength(1) @MaxLength(249): class-validator counts a surrogate pair or a character with
 * a variation selector as one, so a string with either is left to it (its length could be below 1).
 */
function isOptionalInstanceId(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    // Lone high surrogates and variation selectors are what the class looks for, one code unit at a time.
    // eslint-disable-next-line no-misleading-character-class
    (isTopicName(value) && value.length >= 1 && !/[\uD800-\uDBFF\uFE0E\uFE0F]/.test(value))
  );
}

/** @IsOptional: undefined and null skip the field's other rules. */
function isOptional(value: unknown, check: (v: unknown) => boolean): boolean {
  return value === undefined || value === null || check(value);
}

/** Sets `key` only when the payload had it (null included), as the DTO instance would. */
function withDefined<T extends object, K extends string>(target: T, key: K, value: unknown): T {
  if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  return target;
}
