import { ConsumerGroup } from './consumer-group';
import { newConsumerGroupMember, updatedMember } from './consumer-group-member';
import {
  type ConsumerGroupCurrentMemberAssignmentValue,
  type ConsumerGroupMemberMetadataValue,
  type ConsumerGroupMetadataValue,
  type ConsumerGroupTargetAssignmentMemberValue,
  type ConsumerGroupTargetAssignmentMetadataValue,
  type ConsumerRecordKey,
  decodeConsumerGroupMetadataValue,
  decodeCurrentMemberAssignmentValue,
  decodeMemberMetadataValue,
  decodeTargetAssignmentMemberValue,
  decodeTargetAssignmentMetadataValue,
} from './consumer-records';
import { fromTopicPartitionList, NO_PARTITIONS, type TopicPartitions } from './topic-partitions';

/** The epoch a member's CurrentMemberAssignment tombstone leaves it at (Kafka's `LEAVE_GROUP_MEMBER_EPOCH`). */
export const LEAVE_GROUP_MEMBER_EPOCH = -1;

/** Where replay finds and creates consumer groups: the shard's groups, or a plain map while loading. */
export interface ConsumerGroupStore {
  get(groupId: string): ConsumerGroup | undefined;
  list(): ConsumerGroup[];
  create(groupId: string): ConsumerGroup;
  remove(groupId: string): void;
  /** Puts back a group `remove` took out (a taken-back group deletion). */
  restore?(group: ConsumerGroup): void;
}

/** A store over a map, for loading and tests. */
export class MapConsumerGroupStore implements ConsumerGroupStore {
  readonly groups = new Map<string, ConsumerGroup>();

  /** `historySize`: the epoch bumps each group keeps for operators (the config's `rebalanceHistorySize`). */
  constructor(private readonly historySize?: number) {}

  get(groupId: string): ConsumerGroup | undefined {
    return this.groups.get(groupId);
  }

  list(): ConsumerGroup[] {
    return [...this.groups.values()];
  }

  create(groupId: string): ConsumerGroup {
    const group = new ConsumerGroup(groupId, this.historySize);
    this.groups.set(groupId, group);
    return group;
  }

  remove(groupId: string): void {
    this.groups.get(groupId)?.markDead();
    this.groups.delete(groupId);
  }

  restore(group: ConsumerGroup): void {
    group.revive();
    this.groups.set(group.groupId, group);
  }
}

/**
 * Applies one consumer group record to the groups (Kafka's `GroupMetadataManager.replay` overloads,
 * rule for rule). The live path applies the records it writes through this same function, so a group
 * loaded from the log is the group that wrote it. A tombstone for a group or member that does not exist
 * is ignored; one that would leave the group inconsistent (a member removed before its assignment) is
 * an illegal state, as in Kafka. Decoding errors surface as `RecordDecodeError`.
 *
 * `fromCompactedLog` (a load): compaction keeps only each key's latest value, so a replica's log can hold
 * a member's old assignment (written before the replica fell behind, not cleaned here yet) without the
 * records that later took partitions from it (cleaned away on the leader before this replica fetched
 * them). A newer assignment that gives such a partition to another member then proves the old one stale:
 * the partition is taken from the stale holder instead of refusing the newer record, which would leave
 * the member at an epoch it has long left and the partition owned by nobody. The stale holder's own
 * latest record, which compaction keeps, comes later in the log and sets it right.
 */
export function replayConsumerRecord(
  store: ConsumerGroupStore,
  key: ConsumerRecordKey,
  value: Buffer | null,
  options: { fromCompactedLog?: boolean } = {},
): void {
  const decoded = value === null ? null : decodeValue(key, value);
  const { groupId } = key;
  const existing = store.get(groupId);
  if (decoded === null && !existing) return;
  const group = existing ?? store.create(groupId);

  switch (key.type) {
    case 'consumer-group-metadata': {
      if (decoded !== null) {
        const v = decoded as ConsumerGroupMetadataValue;
        group.metadataHash = v.metadataHash;
        group.setGroupEpoch(v.epoch);
        if (v.history !== undefined) group.history.restore(v.history);
        return;
      }
      if (group.size > 0)
        throw new Error(
          `Received a tombstone record to delete group ${groupId} but the group still has ${group.size} members.`,
        );
      if (group.targetAssignment.size > 0)
        throw new Error(
          `Received a tombstone record to delete group ${groupId} but the target assignment still has ${group.targetAssignment.size} members.`,
        );
      if (group.assignmentEpoch !== -1)
        throw new Error(
          `Received a tombstone record to delete group ${groupId} but did not receive ConsumerGroupTargetAssignmentMetadataValue tombstone.`,
        );
      store.remove(groupId);
      return;
    }

    case 'consumer-group-member-metadata': {
      const old = group.member(key.memberId);
      if (decoded !== null) {
        const v = decoded as ConsumerGroupMemberMetadataValue;
        group.updateMember(
          updatedMember(old ?? newConsumerGroupMember(key.memberId), {
            instanceId: v.instanceId,
            rackId: v.rackId,
            clientId: v.clientId,
            clientHost: v.clientHost,
            subscribedTopicNames: new Set(v.subscribedTopicNames),
            subscribedTopicRegex: v.subscribedTopicRegex ?? '',
            rebalanceTimeoutMs: v.rebalanceTimeoutMs,
            serverAssignorName: v.serverAssignor,
            classicMemberMetadata: v.classicMemberMetadata ?? null,
          }),
        );
        return;
      }
      if (!old) return;
      if (old.memberEpoch !== LEAVE_GROUP_MEMBER_EPOCH)
        throw new Error(
          `Received a tombstone record to delete member ${key.memberId} but did not receive ConsumerGroupCurrentMemberAssignmentValue tombstone.`,
        );
      if (group.targetAssignment.has(key.memberId))
        throw new Error(
          `Received a tombstone record to delete member ${key.memberId} but did not receive ConsumerGroupTargetAssignmentMetadataValue tombstone.`,
        );
      group.removeMember(key.memberId);
      return;
    }

    case 'consumer-group-target-assignment-member':
      if (decoded !== null) {
        const v = decoded as ConsumerGroupTargetAssignmentMemberValue;
        group.updateTargetAssignment(key.memberId, fromTopicPartitionList(v.topicPartitions));
      } else group.removeTargetAssignment(key.memberId);
      return;

    case 'consumer-group-target-assignment-metadata':
      if (decoded !== null) {
        group.setTargetAssignmentEpoch((decoded as ConsumerGroupTargetAssignmentMetadataValue).assignmentEpoch);
        return;
      }
      if (group.targetAssignment.size > 0)
        throw new Error(
          `Received a tombstone record to delete target assignment of ${groupId} but the assignment still has ${group.targetAssignment.size} members.`,
        );
      group.setTargetAssignmentEpoch(-1);
      return;

    case 'consumer-group-current-member-assignment': {
      const old = group.member(key.memberId);
      if (decoded !== null) {
        const v = decoded as ConsumerGroupCurrentMemberAssignmentValue;
        const assignedPartitions = fromTopicPartitionList(v.assignedPartitions);
        const partitionsPendingRevocation = fromTopicPartitionList(v.partitionsPendingRevocation);
        if (options.fromCompactedLog)
          releaseFromStaleHolders(group, key.memberId, [assignedPartitions, partitionsPendingRevocation]);
        group.updateMember(
          updatedMember(old ?? newConsumerGroupMember(key.memberId), {
            memberEpoch: v.memberEpoch,
            previousMemberEpoch: v.previousMemberEpoch,
            state: v.state,
            assignedPartitions,
            partitionsPendingRevocation,
          }),
        );
        return;
      }
      if (!old) return;
      group.updateMember(
        updatedMember(old, {
          memberEpoch: LEAVE_GROUP_MEMBER_EPOCH,
          previousMemberEpoch: LEAVE_GROUP_MEMBER_EPOCH,
          assignedPartitions: NO_PARTITIONS,
          partitionsPendingRevocation: NO_PARTITIONS,
        }),
      );
      return;
    }
  }
}

/** Takes `partitions` from every member but `memberId` that still holds some (assigned or pending revocation). */
function releaseFromStaleHolders(group: ConsumerGroup, memberId: string, partitions: TopicPartitions[]): void {
  // The usual record takes nothing held elsewhere: found from the partition index, without visiting members.
  const self = group.member(memberId);
  const heldElsewhere = partitions.some((map) =>
    [...map].some(([topic, set]) =>
      [...set].some(
        (p) =>
          group.currentPartitionEpoch(topic, p) !== -1 &&
          !(self?.assignedPartitions.get(topic)?.has(p) || self?.partitionsPendingRevocation.get(topic)?.has(p)),
      ),
    ),
  );
  if (!heldElsewhere) return;
  for (const other of [...group.members.values()]) {
    if (other.memberId === memberId) continue;
    const assignedPartitions = without(other.assignedPartitions, partitions);
    const partitionsPendingRevocation = without(other.partitionsPendingRevocation, partitions);
    if (
      assignedPartitions === other.assignedPartitions &&
      partitionsPendingRevocation === other.partitionsPendingRevocation
    )
      continue;
    group.updateMember(updatedMember(other, { assignedPartitions, partitionsPendingRevocation }));
  }
}

/** `held` less every partition of `taken`; `held` itself when it keeps them all. */
function without(held: TopicPartitions, taken: TopicPartitions[]): TopicPartitions {
  let result: Map<string, ReadonlySet<number>> | undefined;
  for (const [topic, set] of held) {
    const kept = [...set].filter((p) => !taken.some((t) => t.get(topic)?.has(p)));
    if (kept.length === set.size) continue;
    result ??= new Map(held);
    if (kept.length > 0) result.set(topic, new Set(kept));
    else result.delete(topic);
  }
  return result ?? held;
}

type ConsumerRecordValue =
  | ConsumerGroupMetadataValue
  | ConsumerGroupMemberMetadataValue
  | ConsumerGroupTargetAssignmentMemberValue
  | ConsumerGroupTargetAssignmentMetadataValue
  | ConsumerGroupCurrentMemberAssignmentValue;

/** The value decoded before anything changes, so a record that does not decode leaves the groups as they were. */
function decodeValue(key: ConsumerRecordKey, value: Buffer): ConsumerRecordValue {
  switch (key.type) {
    case 'consumer-group-metadata':
      return decodeConsumerGroupMetadataValue(value);
    case 'consumer-group-member-metadata':
      return decodeMemberMetadataValue(value);
    case 'consumer-group-target-assignment-member':
      return decodeTargetAssignmentMemberValue(value);
    case 'consumer-group-target-assignment-metadata':
      return decodeTargetAssignmentMetadataValue(value);
    case 'consumer-group-current-member-assignment':
      return decodeCurrentMemberAssignmentValue(value);
  }
}
