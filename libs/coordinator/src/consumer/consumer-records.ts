import type { LogRecord } from '@cohort/replication';
import type { ClassicMemberMetadata, ConsumerGroupMember } from './consumer-group-member';
import { memberStateFromValue, type MemberState } from './member-state';
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
import {
  toTopicPartitionList,
  type TopicPartitionList,
  type TopicPartitions,
  topicPartitionListJson,
} from './topic-partitions';
import { bumpsJson, type EpochBump, restoreBumps } from './epoch-history';
import { remember, remembered, UNENCODED } from './written-bytes';

/**
 * The consumer group records of `__consumer_offsets` (Kafka's `ConsumerGroup*Key/Value`). As
 * for classic records (records/record-codec.ts), a key is a JSON array whose first element is Kafka's
 * key version, which is the record type, and a value is a JSON object with a version `v`; a null value
 * is a tombstone. Topics are named, not numbered by id (Cohort names topics on the wire).
 */
export const ConsumerRecordType = {
  CONSUMER_GROUP_METADATA: 3,
  /** Kafka's ConsumerGroupPartitionMetadata (4) is not written: the metadata hash of record 3 replaces it, as in Kafka 4.1. */
  CONSUMER_GROUP_MEMBER_METADATA: 5,
  CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA: 6,
  CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER: 7,
  CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT: 8,
} as const;

export type ConsumerRecordKey =
  | { type: 'consumer-group-metadata'; groupId: string }
  | { type: 'consumer-group-member-metadata'; groupId: string; memberId: string }
  | { type: 'consumer-group-target-assignment-metadata'; groupId: string }
  | { type: 'consumer-group-target-assignment-member'; groupId: string; memberId: string }
  | { type: 'consumer-group-current-member-assignment'; groupId: string; memberId: string };

/**
 * ConsumerGroupMetadataValue: the group epoch, and Kafka 4.1's hash of the subscribed topics' metadata.
 * Cohort adds the group's epoch history (`EpochHistory`) as it stands after the record, absent in
 * records that do not change it (a replay then keeps the history it has).
 */
export interface ConsumerGroupMetadataValue {
  epoch: number;
  metadataHash: number;
  history?: EpochBump[];
}

/** ConsumerGroupMemberMetadataValue: what the member told the coordinator about itself. */
export interface ConsumerGroupMemberMetadataValue {
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  rebalanceTimeoutMs: number;
  serverAssignor: string | null;
  /** Kafka's ClassicMemberMetadata: present only for a member that speaks the classic protocol. */
  classicMemberMetadata?: ClassicMemberMetadata | null;
}

export interface ConsumerGroupTargetAssignmentMetadataValue {
  assignmentEpoch: number;
}

export interface ConsumerGroupTargetAssignmentMemberValue {
  topicPartitions: TopicPartitionList[];
}

export interface ConsumerGroupCurrentMemberAssignmentValue {
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberState;
  assignedPartitions: TopicPartitionList[];
  partitionsPendingRevocation: TopicPartitionList[];
}

const WRITE_VERSION = 0;

/** The key of a record this process builds, remembered decoded. */
function writtenKey(key: ConsumerRecordKey, type: number): Buffer {
  const bytes = groupRecordKey(type, key.groupId, 'memberId' in key ? key.memberId : undefined);
  remember(bytes, key);
  return bytes;
}

/** The value of a record this process builds (its JSON, when made already), remembered as decoding it gives it. */
function writtenValue(value: object, decoded: object = value, json?: string): Buffer {
  const bytes = json === undefined ? encodeJson({ v: WRITE_VERSION, ...value }) : Buffer.from(json, 'utf8');
  remember(bytes, decoded);
  return bytes;
}

const T = ConsumerRecordType;

const GROUP_KEYS = new Map([
  [T.CONSUMER_GROUP_METADATA, 'consumer-group-metadata'],
  [T.CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, 'consumer-group-target-assignment-metadata'],
] as const);
const MEMBER_KEYS = new Map([
  [T.CONSUMER_GROUP_MEMBER_METADATA, 'consumer-group-member-metadata'],
  [T.CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, 'consumer-group-target-assignment-member'],
  [T.CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, 'consumer-group-current-member-assignment'],
] as const);

/** The consumer group key `parsed` (a decoded key array), or undefined when it is not one. */
export function decodeConsumerKey(parsed: unknown): ConsumerRecordKey | undefined {
  return decodeGroupRecordKey(parsed, GROUP_KEYS, MEMBER_KEYS);
}

/** The consumer group key of a record, or undefined when the record is of another kind. */
export function decodeConsumerRecordKey(key: Buffer): ConsumerRecordKey | undefined {
  return remembered<ConsumerRecordKey>(key) ?? decodeConsumerKey(parseJson(key, 'key'));
}

export function decodeConsumerGroupMetadataValue(bytes: Buffer): ConsumerGroupMetadataValue {
  const written = remembered<ConsumerGroupMetadataValue>(bytes);
  if (written) return written;
  const what = 'consumer group metadata value';
  const o = requireObject(parseJson(bytes, 'value'), what);
  return {
    epoch: requireField(o, 'epoch', isInteger, what),
    metadataHash: o.metadataHash === undefined ? 0 : requireField(o, 'metadataHash', isInteger, what),
    ...(o.history === undefined ? {} : { history: restoreBumps(o.history) }),
  };
}

export function decodeMemberMetadataValue(bytes: Buffer): ConsumerGroupMemberMetadataValue {
  const written = remembered<ConsumerGroupMemberMetadataValue>(bytes);
  if (written) return written;
  const what = 'consumer group member metadata value';
  const o = requireObject(parseJson(bytes, 'value'), what);
  const names = o.subscribedTopicNames;
  if (!Array.isArray(names) || !names.every(isString))
    throw new RecordDecodeError(`${what}.subscribedTopicNames must be an array of strings`);
  return {
    instanceId: requireField(o, 'instanceId', isNullableString, what),
    rackId: requireField(o, 'rackId', isNullableString, what),
    clientId: requireField(o, 'clientId', isString, what),
    clientHost: requireField(o, 'clientHost', isString, what),
    subscribedTopicNames: names,
    subscribedTopicRegex: requireField(o, 'subscribedTopicRegex', isNullableString, what),
    rebalanceTimeoutMs: requireField(o, 'rebalanceTimeoutMs', isInteger, what),
    serverAssignor: requireField(o, 'serverAssignor', isNullableString, what),
    classicMemberMetadata: decodeClassicMemberMetadata(o.classicMemberMetadata, `${what}.classicMemberMetadata`),
  };
}

function decodeClassicMemberMetadata(raw: unknown, what: string): ClassicMemberMetadata | null {
  if (raw === undefined || raw === null) return null;
  const o = requireObject(raw, what);
  const protocols = o.supportedProtocols;
  if (!Array.isArray(protocols)) throw new RecordDecodeError(`${what}.supportedProtocols must be an array`);
  return {
    sessionTimeoutMs: requireField(o, 'sessionTimeoutMs', isInteger, what),
    supportedProtocols: protocols.map((p) => {
      const protocol = requireObject(p, `${what}.supportedProtocols`);
      return {
        name: requireField(protocol, 'name', isString, `${what}.supportedProtocols`),
        metadata: protocol.metadata ?? null,
      };
    }),
  };
}

export function decodeTargetAssignmentMetadataValue(bytes: Buffer): ConsumerGroupTargetAssignmentMetadataValue {
  const written = remembered<ConsumerGroupTargetAssignmentMetadataValue>(bytes);
  if (written) return written;
  const what = 'consumer group target assignment metadata value';
  const o = requireObject(parseJson(bytes, 'value'), what);
  return { assignmentEpoch: requireField(o, 'assignmentEpoch', isInteger, what) };
}

export function decodeTargetAssignmentMemberValue(bytes: Buffer): ConsumerGroupTargetAssignmentMemberValue {
  const written = remembered<ConsumerGroupTargetAssignmentMemberValue>(bytes);
  if (written) return written;
  const what = 'consumer group target assignment member value';
  const o = requireObject(parseJson(bytes, 'value'), what);
  return { topicPartitions: decodeTopicPartitions(o.topicPartitions, `${what}.topicPartitions`) };
}

export function decodeCurrentMemberAssignmentValue(bytes: Buffer): ConsumerGroupCurrentMemberAssignmentValue {
  const written = remembered<ConsumerGroupCurrentMemberAssignmentValue>(bytes);
  if (written) return written;
  const what = 'consumer group current member assignment value';
  const o = requireObject(parseJson(bytes, 'value'), what);
  return {
    memberEpoch: requireField(o, 'memberEpoch', isInteger, what),
    previousMemberEpoch: requireField(o, 'previousMemberEpoch', isInteger, what),
    state: memberStateFromValue(requireField(o, 'state', isInteger, what)),
    assignedPartitions: decodeTopicPartitions(o.assignedPartitions, `${what}.assignedPartitions`),
    partitionsPendingRevocation: decodeTopicPartitions(
      o.partitionsPendingRevocation,
      `${what}.partitionsPendingRevocation`,
    ),
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

// Builders (Kafka's GroupCoordinatorRecordHelpers.newConsumerGroup*Record and their tombstones).

/**
 * The group epoch record; with `history`, the group's epoch history as it stands after it. Such a
 * record's bytes are encoded only when first read (the log's append): every join of a burst writes one,
 * each with the whole history, and all but the group's last of a heartbeat step are dropped unwritten
 * (superseded-epoch-records.ts). Applying it as it is written reads what it was built from
 * (`valueToReplay`), never its bytes; the bytes, once read, are what they always were.
 */
export function consumerGroupEpochRecord(
  groupId: string,
  epoch: number,
  metadataHash: number,
  now: number,
  history?: readonly EpochBump[],
): LogRecord {
  const key = writtenKey({ type: 'consumer-group-metadata', groupId }, T.CONSUMER_GROUP_METADATA);
  const head = JSON.stringify({ v: WRITE_VERSION, epoch, metadataHash });
  if (history === undefined) {
    const value = Buffer.from(head, 'utf8');
    remember(value, { epoch, metadataHash });
    return { key, value, timestamp: now };
  }
  // The list as given, not a copy: a history list is never changed once made (`EpochHistory`), and
  // every join of a burst writes one of these records.
  const decoded: ConsumerGroupMetadataValue = { epoch, metadataHash, history: history as EpochBump[] };
  // What the bytes decode to, for replaying the record before (or without) encoding it.
  const unencoded = {} as Buffer;
  remember(unencoded, decoded);
  let bytes: Buffer | undefined;
  const record = { key, timestamp: now } as LogRecord;
  Object.defineProperties(record, {
    value: {
      enumerable: true,
      configurable: true,
      get: () => {
        if (bytes === undefined) {
          // The JSON of `{ v, epoch, metadataHash, history: persistBumps(history) }`, each bump's part reused.
          bytes = Buffer.from(`${head.slice(0, -1)},"history":${bumpsJson(history)}}`, 'utf8');
          remember(bytes, decoded);
        }
        return bytes;
      },
      set: (value: Buffer | null) =>
        Object.defineProperty(record, 'value', { value, writable: true, enumerable: true }),
    },
    [UNENCODED]: { value: unencoded },
  });
  return record;
}

export function consumerGroupEpochTombstone(groupId: string, now: number): LogRecord {
  return { key: groupRecordKey(T.CONSUMER_GROUP_METADATA, groupId), value: null, timestamp: now };
}

export function memberSubscriptionRecord(groupId: string, member: ConsumerGroupMember, now: number): LogRecord {
  const value: ConsumerGroupMemberMetadataValue = {
    instanceId: member.instanceId,
    rackId: member.rackId,
    clientId: member.clientId,
    clientHost: member.clientHost,
    subscribedTopicNames: [...member.subscribedTopicNames].sort(),
    subscribedTopicRegex: member.subscribedTopicRegex,
    rebalanceTimeoutMs: member.rebalanceTimeoutMs,
    serverAssignor: member.serverAssignorName,
    // Written only for classic members, so a consumer member's record stays as it was before migration.
    ...(member.classicMemberMetadata === null ? {} : { classicMemberMetadata: member.classicMemberMetadata }),
  };
  const key = { type: 'consumer-group-member-metadata', groupId, memberId: member.memberId } as const;
  // A classic member's metadata is decoded from the bytes (its protocols' metadata are whatever JSON
  // makes of them); a consumer member's record is remembered as decoding it gives it (no classic part).
  if (member.classicMemberMetadata !== null)
    return {
      key: writtenKey(key, T.CONSUMER_GROUP_MEMBER_METADATA),
      value: encodeJson({ v: WRITE_VERSION, ...value }),
      timestamp: now,
    };
  return {
    key: writtenKey(key, T.CONSUMER_GROUP_MEMBER_METADATA),
    value: writtenValue(value, { ...value, classicMemberMetadata: null }),
    timestamp: now,
  };
}

export function memberSubscriptionTombstone(groupId: string, memberId: string, now: number): LogRecord {
  return { key: groupRecordKey(T.CONSUMER_GROUP_MEMBER_METADATA, groupId, memberId), value: null, timestamp: now };
}

export function targetAssignmentRecord(
  groupId: string,
  memberId: string,
  partitions: TopicPartitions,
  now: number,
): LogRecord {
  const value: ConsumerGroupTargetAssignmentMemberValue = { topicPartitions: toTopicPartitionList(partitions) };
  // What `encodeJson({ v, ...value })` gives, with the list's JSON made once per map.
  const json = `{"v":${WRITE_VERSION},"topicPartitions":${topicPartitionListJson(partitions)}}`;
  return {
    key: writtenKey(
      { type: 'consumer-group-target-assignment-member', groupId, memberId },
      T.CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
    ),
    value: writtenValue(value, value, json),
    timestamp: now,
  };
}

export function targetAssignmentTombstone(groupId: string, memberId: string, now: number): LogRecord {
  return {
    key: groupRecordKey(T.CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, groupId, memberId),
    value: null,
    timestamp: now,
  };
}

export function targetAssignmentEpochRecord(groupId: string, assignmentEpoch: number, now: number): LogRecord {
  const value: ConsumerGroupTargetAssignmentMetadataValue = { assignmentEpoch };
  return {
    key: writtenKey(
      { type: 'consumer-group-target-assignment-metadata', groupId },
      T.CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA,
    ),
    value: writtenValue(value),
    timestamp: now,
  };
}

export function targetAssignmentEpochTombstone(groupId: string, now: number): LogRecord {
  return { key: groupRecordKey(T.CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, groupId), value: null, timestamp: now };
}

export function currentAssignmentRecord(groupId: string, member: ConsumerGroupMember, now: number): LogRecord {
  const value: ConsumerGroupCurrentMemberAssignmentValue = {
    memberEpoch: member.memberEpoch,
    previousMemberEpoch: member.previousMemberEpoch,
    state: member.state,
    assignedPartitions: toTopicPartitionList(member.assignedPartitions),
    partitionsPendingRevocation: toTopicPartitionList(member.partitionsPendingRevocation),
  };
  // What `encodeJson({ v, ...value })` gives (fields in the same order), each list's JSON made once per map.
  const json =
    `{"v":${WRITE_VERSION},"memberEpoch":${value.memberEpoch},"previousMemberEpoch":${value.previousMemberEpoch},` +
    `"state":${value.state},"assignedPartitions":${topicPartitionListJson(member.assignedPartitions)},` +
    `"partitionsPendingRevocation":${topicPartitionListJson(member.partitionsPendingRevocation)}}`;
  return {
    key: writtenKey(
      { type: 'consumer-group-current-member-assignment', groupId, memberId: member.memberId },
      T.CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    ),
    value: writtenValue(value, value, json),
    timestamp: now,
  };
}

export function currentAssignmentTombstone(groupId: string, memberId: string, now: number): LogRecord {
  return {
    key: groupRecordKey(T.CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, groupId, memberId),
    value: null,
    timestamp: now,
  };
}
