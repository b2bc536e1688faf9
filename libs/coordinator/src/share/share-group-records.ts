import type { LogRecord } from '@cohort/replication';
import {
  encodeJson,
  isInteger,
  isNullableString,
  isString,
  parseJson,
  RecordDecodeError,
  requireField,
  requireObject,
} from '../records/record-codec';
import { decodeGroupRecordKey, groupRecordKey } from '../records/group-record-key';
import { toTopicPartitionList, type TopicPartitionList, type TopicPartitions } from '../consumer/topic-partitions';
import type { ShareGroup, ShareGroupMember } from './share-group-model';

/**
 * The share group records of `__consumer_offsets` (Kafka's `ShareGroup*Key/Value`, record types 10 to
 * 14): as every Cohort record, a key is a JSON array whose first element is Kafka's record type and a
 * value a JSON object with a version `v`; null is a tombstone. Topics are named. Kafka's
 * ShareGroupStatePartitionMetadata (15) is not written: Cohort's share partitions need no initializing
 * step before they can be assigned.
 */
export const ShareRecordType = {
  SHARE_GROUP_MEMBER_METADATA: 10,
  SHARE_GROUP_METADATA: 11,
  SHARE_GROUP_TARGET_ASSIGNMENT_METADATA: 12,
  SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER: 13,
  SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT: 14,
} as const;

const T = ShareRecordType;
const WRITE_VERSION = 0;

export type ShareRecordKey =
  | { type: 'share-group-metadata'; groupId: string }
  | { type: 'share-group-target-assignment-metadata'; groupId: string }
  | { type: 'share-group-member-metadata'; groupId: string; memberId: string }
  | { type: 'share-group-target-assignment-member'; groupId: string; memberId: string }
  | { type: 'share-group-current-member-assignment'; groupId: string; memberId: string };

export interface ShareGroupMemberMetadataValue {
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
}

export interface ShareGroupMetadataValue {
  epoch: number;
  metadataHash: number;
}

export interface ShareGroupCurrentMemberAssignmentValue {
  memberEpoch: number;
  previousMemberEpoch: number;
  /** Kafka's MemberState value; a share member is always STABLE (0). */
  state: number;
  assignedPartitions: TopicPartitionList[];
}

const GROUP_KEYS = new Map([
  [T.SHARE_GROUP_METADATA, 'share-group-metadata'],
  [T.SHARE_GROUP_TARGET_ASSIGNMENT_METADATA, 'share-group-target-assignment-metadata'],
] as const);
const MEMBER_KEYS = new Map([
  [T.SHARE_GROUP_MEMBER_METADATA, 'share-group-member-metadata'],
  [T.SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER, 'share-group-target-assignment-member'],
  [T.SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT, 'share-group-current-member-assignment'],
] as const);

/** The share group key of a record, or undefined when the record is of another kind. */
export function decodeShareRecordKey(bytes: Buffer): ShareRecordKey | undefined {
  return decodeGroupRecordKey(parseJson(bytes, 'key'), GROUP_KEYS, MEMBER_KEYS);
}

export function decodeShareGroupMetadataValue(bytes: Buffer): ShareGroupMetadataValue {
  const what = 'share group metadata value';
  const o = requireObject(parseJson(bytes, 'value'), what);
  return {
    epoch: requireField(o, 'epoch', isInteger, what),
    metadataHash: requireField(o, 'metadataHash', isInteger, what),
  };
}

export function decodeShareMemberMetadataValue(bytes: Buffer): ShareGroupMemberMetadataValue {
  const what = 'share group member metadata value';
  const o = requireObject(parseJson(bytes, 'value'), what);
  const names = o.subscribedTopicNames;
  if (!Array.isArray(names) || !names.every(isString))
    throw new RecordDecodeError(`${what}.subscribedTopicNames must be an array of strings`);
  return {
    rackId: requireField(o, 'rackId', isNullableString, what),
    clientId: requireField(o, 'clientId', isString, what),
    clientHost: requireField(o, 'clientHost', isString, what),
    subscribedTopicNames: names,
  };
}

export function decodeShareAssignmentEpoch(bytes: Buffer): number {
  const what = 'share group target assignment metadata value';
  return requireField(requireObject(parseJson(bytes, 'value'), what), 'assignmentEpoch', isInteger, what);
}

export function decodeShareTargetMember(bytes: Buffer): TopicPartitionList[] {
  const what = 'share group target assignment member value';
  const o = requireObject(parseJson(bytes, 'value'), what);
  return decodeTopicPartitions(o.topicPartitions, `${what}.topicPartitions`);
}

export function decodeShareCurrentAssignment(bytes: Buffer): ShareGroupCurrentMemberAssignmentValue {
  const what = 'share group current member assignment value';
  const o = requireObject(parseJson(bytes, 'value'), what);
  return {
    memberEpoch: requireField(o, 'memberEpoch', isInteger, what),
    previousMemberEpoch: requireField(o, 'previousMemberEpoch', isInteger, what),
    state: requireField(o, 'state', isInteger, what),
    assignedPartitions: decodeTopicPartitions(o.assignedPartitions, `${what}.assignedPartitions`),
  };
}

function decodeTopicPartitions(raw: unknown, what: string): TopicPartitionList[] {
  if (!Array.isArray(raw)) throw new RecordDecodeError(`${what} must be an array`);
  return raw.map((entry) => {
    const o = requireObject(entry, what);
    const partitions = o.partitions;
    if (!Array.isArray(partitions) || !partitions.every((p) => Number.isInteger(p) && p >= 0))
      throw new RecordDecodeError(`${what}.partitions must be an array of partition numbers`);
    return { topic: requireField(o, 'topic', isString, what), partitions: partitions as number[] };
  });
}

const record = (k: Buffer, value: object | null, now: number): LogRecord => ({
  key: k,
  value: value === null ? null : encodeJson({ v: WRITE_VERSION, ...value }),
  timestamp: now,
});

// Builders (Kafka's GroupCoordinatorRecordHelpers.newShareGroup*Record and their tombstones).

export function shareGroupEpochRecord(groupId: string, epoch: number, metadataHash: number, now: number): LogRecord {
  return record(
    groupRecordKey(T.SHARE_GROUP_METADATA, groupId),
    { epoch, metadataHash } satisfies ShareGroupMetadataValue,
    now,
  );
}

export function shareMemberRecord(groupId: string, member: ShareGroupMember, now: number): LogRecord {
  const value: ShareGroupMemberMetadataValue = {
    rackId: member.rackId,
    clientId: member.clientId,
    clientHost: member.clientHost,
    subscribedTopicNames: [...member.subscribedTopicNames].sort(),
  };
  return record(groupRecordKey(T.SHARE_GROUP_MEMBER_METADATA, groupId, member.memberId), value, now);
}

export function shareTargetRecord(groupId: string, memberId: string, target: TopicPartitions, now: number): LogRecord {
  const value = { topicPartitions: toTopicPartitionList(target) };
  return record(groupRecordKey(T.SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER, groupId, memberId), value, now);
}

export function shareAssignmentEpochRecord(groupId: string, assignmentEpoch: number, now: number): LogRecord {
  return record(groupRecordKey(T.SHARE_GROUP_TARGET_ASSIGNMENT_METADATA, groupId), { assignmentEpoch }, now);
}

export function shareCurrentAssignmentRecord(groupId: string, member: ShareGroupMember, now: number): LogRecord {
  const value: ShareGroupCurrentMemberAssignmentValue = {
    memberEpoch: member.memberEpoch,
    previousMemberEpoch: member.previousMemberEpoch,
    state: 0,
    assignedPartitions: toTopicPartitionList(member.assignedPartitions),
  };
  return record(groupRecordKey(T.SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT, groupId, member.memberId), value, now);
}

/** The tombstones that remove one member (Kafka's `shareGroupFenceMember` order: current assignment, target, member). */
export function shareMemberTombstones(groupId: string, memberId: string, now: number): LogRecord[] {
  return [
    record(groupRecordKey(T.SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT, groupId, memberId), null, now),
    record(groupRecordKey(T.SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER, groupId, memberId), null, now),
    record(groupRecordKey(T.SHARE_GROUP_MEMBER_METADATA, groupId, memberId), null, now),
  ];
}

/** The tombstones that delete an Empty group (Kafka's `ShareGroup.createGroupTombstoneRecords` order). */
export function shareGroupTombstones(group: ShareGroup, now: number): LogRecord[] {
  const ids = [...group.members.keys()];
  return [
    ...ids.map((id) => record(groupRecordKey(T.SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT, group.groupId, id), null, now)),
    ...ids.map((id) => record(groupRecordKey(T.SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER, group.groupId, id), null, now)),
    record(groupRecordKey(T.SHARE_GROUP_TARGET_ASSIGNMENT_METADATA, group.groupId), null, now),
    ...ids.map((id) => record(groupRecordKey(T.SHARE_GROUP_MEMBER_METADATA, group.groupId, id), null, now)),
    record(groupRecordKey(T.SHARE_GROUP_METADATA, group.groupId), null, now),
  ];
}
