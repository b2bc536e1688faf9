import type { LogRecord } from '@cohort/replication';
import { fromTopicPartitionList } from '../consumer/topic-partitions';
import { newShareGroupMember, ShareGroup } from './share-group-model';
import {
  decodeShareAssignmentEpoch,
  decodeShareCurrentAssignment,
  decodeShareGroupMetadataValue,
  decodeShareMemberMetadataValue,
  decodeShareRecordKey,
  decodeShareTargetMember,
  type ShareRecordKey,
} from './share-group-records';

/** The share groups of a shard, or of a partition being loaded. */
export class ShareGroupStore {
  readonly groups = new Map<string, ShareGroup>();

  get(groupId: string): ShareGroup | undefined {
    return this.groups.get(groupId);
  }

  list(): ShareGroup[] {
    return [...this.groups.values()];
  }

  getOrCreate(groupId: string): ShareGroup {
    let group = this.groups.get(groupId);
    if (!group) this.groups.set(groupId, (group = new ShareGroup(groupId)));
    return group;
  }
}

/**
 * Applies one share group record (Kafka's `GroupMetadataManager.replay` overloads for share groups).
 * The live path applies the records it writes through this same function, so a group loaded from the
 * log is the group that wrote it. The value is decoded before anything changes (a `RecordDecodeError`
 * leaves the groups as they were); a tombstone for what does not exist is ignored.
 */
export function replayShareRecord(store: ShareGroupStore, key: ShareRecordKey, value: Buffer | null): void {
  const existing = store.get(key.groupId);
  if (value === null && !existing) return;
  switch (key.type) {
    case 'share-group-metadata': {
      if (value === null) {
        // The group's last record: its members are gone already (Kafka checks as much).
        if (existing!.size === 0) store.groups.delete(key.groupId);
        return;
      }
      const v = decodeShareGroupMetadataValue(value);
      const group = store.getOrCreate(key.groupId);
      group.groupEpoch = v.epoch;
      group.metadataHash = v.metadataHash;
      return;
    }
    case 'share-group-target-assignment-metadata': {
      const epoch = value === null ? 0 : decodeShareAssignmentEpoch(value);
      store.getOrCreate(key.groupId).assignmentEpoch = epoch;
      return;
    }
    case 'share-group-target-assignment-member': {
      if (value === null) {
        existing!.targetAssignment.delete(key.memberId);
        return;
      }
      const target = fromTopicPartitionList(decodeShareTargetMember(value));
      store.getOrCreate(key.groupId).targetAssignment.set(key.memberId, target);
      return;
    }
    case 'share-group-member-metadata': {
      if (value === null) {
        existing!.removeMember(key.memberId);
        return;
      }
      const v = decodeShareMemberMetadataValue(value);
      const group = store.getOrCreate(key.groupId);
      const old = group.member(key.memberId) ?? newShareGroupMember(key.memberId);
      group.updateMember({
        ...old,
        rackId: v.rackId,
        clientId: v.clientId,
        clientHost: v.clientHost,
        subscribedTopicNames: new Set(v.subscribedTopicNames),
      });
      return;
    }
    case 'share-group-current-member-assignment': {
      const group = existing ?? store.getOrCreate(key.groupId);
      const old = group.member(key.memberId);
      if (value === null) {
        // Kafka leaves the member at epoch -1 until its metadata tombstone removes it.
        if (old) group.updateMember({ ...old, memberEpoch: -1, previousMemberEpoch: -1 });
        return;
      }
      const v = decodeShareCurrentAssignment(value);
      group.updateMember({
        ...(old ?? newShareGroupMember(key.memberId)),
        memberEpoch: v.memberEpoch,
        previousMemberEpoch: v.previousMemberEpoch,
        assignedPartitions: fromTopicPartitionList(v.assignedPartitions),
      });
      return;
    }
  }
}

/** One write whose records are applied but not committed: the groups it touched, as they were before. */
interface PendingWrite {
  readonly before: Map<string, ShareGroup | undefined>;
}

/**
 * Applies share group records as soon as a step produces them (the next request sees them, as in
 * Kafka's runtime), and takes them back if their write fails, with every write applied after it,
 * newest first (Kafka reverts to its last committed snapshot; here each write keeps copies of the
 * groups it touched).
 */
export class ShareGroupWrites {
  private readonly pending: PendingWrite[] = [];

  constructor(private readonly store: ShareGroupStore) {}

  /** Applies the share group records among `records`; the returned write goes to `committed` or `failed`. */
  apply(records: readonly LogRecord[]): object {
    const write = this.begin(records);
    this.pending.push(write as PendingWrite);
    return write;
  }

  /**
   * Applies `records` as a write not handed to the log yet (a batch's heartbeats waiting for their
   * group's target, share-heartbeat-queue.ts): `extend` adds to it, `attach` makes it pending once it is
   * handed to the log (writes are pending in the order the log gets them), `takeBack` undoes it. Its
   * groups are copied once, however many records it gathers.
   */
  begin(records: readonly LogRecord[]): object {
    const write: PendingWrite = { before: new Map() };
    this.extend(write, records);
    return write;
  }

  extend(write: object, records: readonly LogRecord[]): void {
    const { before } = write as PendingWrite;
    for (const record of records) {
      const key = decodeShareRecordKey(record.key);
      if (!key) continue;
      if (!before.has(key.groupId)) before.set(key.groupId, this.store.get(key.groupId)?.clone());
      replayShareRecord(this.store, key, record.value);
    }
  }

  attach(write: object): void {
    this.pending.push(write as PendingWrite);
  }

  /**
   * A write never attached is dropped: its groups go back to what they were before it. Only right while
   * no write applied after it touched them (the queue finishes a group's deferred heartbeats before
   * anything else of the group is applied).
   */
  takeBack(write: object): void {
    this.restore(write as PendingWrite);
  }

  committed(write: object): void {
    const index = this.pending.indexOf(write as PendingWrite);
    if (index >= 0) this.pending.splice(0, index + 1);
  }

  failed(write: object): void {
    const index = this.pending.indexOf(write as PendingWrite);
    if (index < 0) return;
    for (const undone of this.pending.splice(index).reverse()) this.restore(undone);
  }

  private restore(undone: PendingWrite): void {
    for (const [groupId, group] of undone.before) {
      if (group) this.store.groups.set(groupId, group);
      else this.store.groups.delete(groupId);
    }
  }
}
