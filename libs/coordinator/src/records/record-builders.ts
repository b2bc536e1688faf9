import type { LogRecord } from '@cohort/replication';
import type { ClassicGroup } from '../group/classic-group';
import type { OffsetAndMetadata } from '../group/group-offsets';
import type { GroupMetadataRecord } from './group-metadata-record';
import { encodeGroupMetadataValue } from './group-metadata-record';
import { encodeOffsetCommitValue } from './offset-commit-record';
import { groupMetadataKey, offsetCommitKey } from './record-codec';

/**
 * The GroupMetadata record of a group as it will be once `assignments` are stored (Kafka's
 * `groupMetadataValue`): every member with its subscription for the chosen protocol and its assignment.
 */
export function groupMetadataValue(
  group: ClassicGroup,
  assignments: ReadonlyMap<string, unknown>,
  now: number,
): GroupMetadataRecord {
  return {
    // Cohort: the rebalance history travels with the group, so a new coordinator still shows it. The
    // rebalance this record completes is written as completed now, with the generation it produced.
    rebalances: group.history.persisted(group.generationId, now, group.size, group.protocolName),
    protocolType: group.protocolType ?? '',
    generation: group.generationId,
    protocol: group.protocolName,
    leader: group.leaderId,
    currentStateTimestamp: group.currentStateTimestamp,
    serverAssignor: group.serverAssignor,
    members: group.allMembers().map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeout: m.rebalanceTimeoutMs,
      sessionTimeout: m.sessionTimeoutMs,
      subscription: group.protocolName === null ? null : (m.metadata(group.protocolName) ?? null),
      assignment: assignments.get(m.memberId) ?? null,
      serverAssignor: m.serverAssignor,
    })),
  };
}

export function groupMetadataRecord(
  group: ClassicGroup,
  assignments: ReadonlyMap<string, unknown>,
  now: number,
): LogRecord {
  return {
    key: groupMetadataKey(group.groupId),
    value: encodeGroupMetadataValue(groupMetadataValue(group, assignments, now)),
    timestamp: now,
  };
}

export function groupTombstone(groupId: string, now: number): LogRecord {
  return { key: groupMetadataKey(groupId), value: null, timestamp: now };
}

export function offsetCommitRecord(
  groupId: string,
  topic: string,
  partition: number,
  value: OffsetAndMetadata,
): LogRecord {
  return {
    key: offsetCommitKey(groupId, topic, partition),
    value: encodeOffsetCommitValue(value),
    timestamp: value.commitTimestamp,
  };
}

export function offsetTombstone(groupId: string, topic: string, partition: number, now: number): LogRecord {
  return { key: offsetCommitKey(groupId, topic, partition), value: null, timestamp: now };
}
