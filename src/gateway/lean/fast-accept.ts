import type {
  HeartbeatRequest,
  JoinGroupProtocol,
  JoinGroupRequest,
  OffsetCommitPartition,
  OffsetCommitRequest,
  OffsetCommitTopic,
  OffsetFetchRequest,
  OffsetFetchTopic,
  SyncGroupAssignment,
  SyncGroupRequest,
} from '@cohort/protocol';
import { INT32_MAX, INT32_MIN, MAX_ID_LENGTH, MAX_REASON_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';

/**
 * Accepts, without class-validator, the common well-formed shapes of the hot requests (and of
 * JoinGroup and the leader's SyncGroup, which every member of a rebalance sends at once) — and only those:
 * each function returns what the DTO's validation would give (the whitelisted fields, same values) for a
 * payload it is sure the DTO accepts, and null for anything else, which then goes through the DTO's
 * validation as before. So the DTOs stay the schema and the error messages stay theirs; this is only
 * allowed to say yes where they would (fast-accept.spec.ts runs both on random and hostile payloads).
 * It is stricter than the DTOs on purpose: an unknown key (whitelist stripping, `__proto__`), a non-plain
 * object (binary attachments), or a string whose length class-validator counts in code points is left to them.
 */
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

export function acceptOffsetFetch(value: unknown): OffsetFetchRequest | null {
  if (!hasOnlyKeys(value, FETCH_KEYS)) return null;
  const { groupId, topics, requireStable } = value;
  if (!isId(groupId) || !isOptional(requireStable, (v) => typeof v === 'boolean')) return null;
  let accepted: OffsetFetchTopic[] | null = null;
  if (topics !== null) {
    if (!Array.isArray(topics)) return null;
    accepted = [];
    for (const topic of topics as unknown[]) {
      if (!hasOnlyKeys(topic, FETCH_TOPIC_KEYS) || !isTopicName(topic.name) || !Array.isArray(topic.partitionIndexes))
        return null;
      const indexes = topic.partitionIndexes as unknown[];
      if (!indexes.every((i) => isInt(i, 0, INT32_MAX))) return null;
      accepted.push({ name: topic.name, partitionIndexes: indexes as number[] });
    }
  }
  return withDefined({ groupId, topics: accepted }, 'requireStable', requireStable);
}

/**
 * The leader's SyncGroup carries every member's assignment (10,000 of them in a large group): through
 * class-validator and class-transformer that took 0.2-0.6 s on the rebalance's critical path, which
 * every member waits on. An assignment is opaque JSON to the DTO (@IsDefined); one with a key the pipe
 * would strip (`__proto__`) or a value JSON cannot carry is left to it.
 */
export function acceptSyncGroup(value: unknown): SyncGroupRequest | null {
  if (!hasOnlyKeys(value, SYNC_KEYS)) return null;
  const { groupId, generationId, memberId, groupInstanceId, protocolType, protocolName, assignments } = value;
  if (
    !isId(groupId) ||
    !isInt(generationId, INT32_MIN, INT32_MAX) ||
    !isId(memberId) ||
    !isOptionalInstanceId(groupInstanceId)
  )
    return null;
  if (!isOptional(protocolType, isId) || !isOptional(protocolName, isId) || !Array.isArray(assignments)) return null;
  const accepted: SyncGroupAssignment[] = [];
  for (const entry of assignments as unknown[]) {
    if (!hasOnlyKeys(entry, SYNC_ASSIGNMENT_KEYS) || !isId(entry.memberId) || !isDefinedJson(entry.assignment))
      return null;
    accepted.push({ memberId: entry.memberId, assignment: entry.assignment });
  }
  const request: SyncGroupRequest = { groupId, generationId, memberId, assignments: accepted };
  return withDefined(
    withDefined(withDefined(request, 'groupInstanceId', groupInstanceId), 'protocolType', protocolType),
    'protocolName',
    protocolName,
  );
}

/**
 * Every member sends JoinGroup twice per rebalance (KIP-394's first join, then the rejoin), 20,000 of
 * them at once for a group of 10,000: through Nest's pipeline and class-validator that was the largest
 * share of the node's CPU while such a group formed. A protocol's metadata is opaque JSON to the DTO
 * (@IsDefined), left to it when it holds a key the pipe would strip or a value JSON cannot carry.
 */
export function acceptJoinGroup(value: unknown): JoinGroupRequest | null {
  if (!hasOnlyKeys(value, JOIN_KEYS)) return null;
  const {
    groupId,
    sessionTimeoutMs,
    rebalanceTimeoutMs,
    memberId,
    groupInstanceId,
    protocolType,
    protocols,
    reason,
    serverAssignor,
  } = value;
  if (
    !isId(groupId) ||
    !isInt(sessionTimeoutMs, INT32_MIN, INT32_MAX) ||
    !isOptional(rebalanceTimeoutMs, (v) => isInt(v, INT32_MIN, INT32_MAX))
  )
    return null;
  if (!isId(memberId) || !isOptionalInstanceId(groupInstanceId) || !isId(protocolType) || !Array.isArray(protocols))
    return null;
  if (
    !isOptional(reason, (v) => typeof v === 'string' && v.length <= MAX_REASON_LENGTH) ||
    !isOptional(serverAssignor, isId)
  )
    return null;
  const accepted: JoinGroupProtocol[] = [];
  for (const entry of protocols as unknown[]) {
    if (!hasOnlyKeys(entry, JOIN_PROTOCOL_KEYS) || !isId(entry.name) || !isDefinedJson(entry.metadata)) return null;
    accepted.push({ name: entry.name, metadata: entry.metadata });
  }
  let request: JoinGroupRequest = { groupId, sessionTimeoutMs, memberId, protocolType, protocols: accepted };
  request = withDefined(
    withDefined(request, 'rebalanceTimeoutMs', rebalanceTimeoutMs),
    'groupInstanceId',
    groupInstanceId,
  );
  return withDefined(withDefined(request, 'reason', reason), 'serverAssignor', serverAssignor);
}

/** An opaque value under @IsDefined (an assignment, a protocol's metadata) that the pipe would give back equal. */
function isDefinedJson(value: unknown): boolean {
  return value !== undefined && value !== null && isPlainJson(value, 0);
}

/** JSON as JSON.parse builds it, a few levels deep, with no key a pipe treats specially: the pipe would give it back equal. */
function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (depth > 4 || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) if (!isPlainJson(item, depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) {
    if (SPECIAL_KEYS.has(key) || !isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
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
const JOIN_KEYS = new Set([
  'groupId',
  'sessionTimeoutMs',
  'rebalanceTimeoutMs',
  'memberId',
  'groupInstanceId',
  'protocolType',
  'protocols',
  'reason',
  'serverAssignor',
]);
const JOIN_PROTOCOL_KEYS = new Set(['name', 'metadata']);
const SYNC_KEYS = new Set([
  'groupId',
  'generationId',
  'memberId',
  'groupInstanceId',
  'protocolType',
  'protocolName',
  'assignments',
]);
const SYNC_ASSIGNMENT_KEYS = new Set(['memberId', 'assignment']);
const SPECIAL_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const COMMIT_KEYS = new Set(['groupId', 'generationId', 'memberId', 'groupInstanceId', 'topics']);
const COMMIT_TOPIC_KEYS = new Set(['name', 'partitions']);
const COMMIT_PARTITION_KEYS = new Set([
  'partitionIndex',
  'committedOffset',
  'committedLeaderEpoch',
  'committedMetadata',
]);
const FETCH_KEYS = new Set(['groupId', 'topics', 'requireStable']);
const FETCH_TOPIC_KEYS = new Set(['name', 'partitionIndexes']);

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
