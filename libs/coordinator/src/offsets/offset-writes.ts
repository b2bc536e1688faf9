import { ErrorCode } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';
import type { OffsetAndMetadata, StagedWrite } from '../group/group-offsets';
import { groupTombstone, offsetCommitRecord, offsetTombstone } from '../records/record-builders';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import { offsetWriteError } from '../shard/store-errors';

export interface OffsetEntry {
  topic: string;
  partition: number;
  value: OffsetAndMetadata;
}

export interface PartitionRef {
  topic: string;
  partition: number;
}

/**
 * Writes of offsets and of their tombstones. Like Kafka's `storeOffsets`, a write is staged (readers
 * still see the committed value; `requireStable` sees it pending) and applied only when its record is
 * committed; a failed write is dropped. Deletions follow the same rule, so neither a new offset nor a
 * deletion is visible before it is durable (SPEC §6).
 */
export class OffsetWrites {
  constructor(private readonly shard: CoordinatorShard) {}

  /** Appends one OffsetCommit record per entry; `onDone` gets NONE or the client-facing error. */
  commit(group: ClassicGroup, entries: OffsetEntry[], onDone: (error: number) => void): void {
    const staged = entries.map((e) => group.offsets.stage(e.topic, e.partition));
    const records = entries.map((e) => offsetCommitRecord(group.groupId, e.topic, e.partition, e.value));
    this.shard.writer.write(records, (result) => {
      if (!result.ok) {
        entries.forEach((e, i) => group.offsets.onFailed(e.topic, e.partition, staged[i]));
        onDone(offsetWriteError(result.storeError));
        return;
      }
      if (!group.is('Dead')) {
        entries.forEach((e, i) => group.offsets.onCommitted(e.topic, e.partition, staged[i], e.value, result.baseOffset + i));
        const topics = this.shard.env.topics;
        for (const e of entries) {
          const logEndOffset = topics.partitionOffsets(e.topic, e.partition)?.endOffset ?? null;
          group.lagWindows.record(e.topic, e.partition, e.value.commitTimestamp, e.value.offset, logEndOffset);
        }
      }
      this.shard.env.metrics.onOffsetCommit?.(entries.length);
      onDone(ErrorCode.NONE);
    });
  }

  /**
   * Appends tombstones for `partitions` (Kafka's `cleanupGroupMetadata`). When this leaves an Empty group
   * with no offsets (or `deleteGroup` asks for it: DeleteGroups), the group dies with them: its own
   * tombstone is written too (only if it was ever persisted, i.e. generation > 0) and it goes Dead once
   * the tombstones are committed, if it is still Empty and without offsets then.
   */
  delete(group: ClassicGroup, partitions: PartitionRef[], deleteGroup: boolean, onDone: (error: number) => void): void {
    const deleting = new Set(partitions.map((p) => refKey(p)));
    const groupDies =
      deleteGroup ||
      (group.is('Empty') &&
        group.numPending === 0 &&
        group.offsets.stagedPartitions().length === 0 &&
        group.offsets.all().every((o) => deleting.has(refKey(o))));
    const now = this.shard.now;
    const staged: StagedWrite[] = partitions.map((p) => group.offsets.stage(p.topic, p.partition));
    const records = partitions.map((p) => offsetTombstone(group.groupId, p.topic, p.partition, now));
    if (groupDies && group.generationId > 0) records.push(groupTombstone(group.groupId, now));
    if (records.length === 0) {
      if (groupDies) this.shard.markDead(group);
      queueMicrotask(() => onDone(ErrorCode.NONE));
      return;
    }
    this.shard.writer.write(records, (result) => {
      if (!result.ok) {
        partitions.forEach((p, i) => group.offsets.onFailed(p.topic, p.partition, staged[i]));
        onDone(offsetWriteError(result.storeError));
        return;
      }
      partitions.forEach((p, i) => group.offsets.onCommitted(p.topic, p.partition, staged[i], null, result.baseOffset + i));
      if (this.shard.owns(group) && group.is('Empty') && group.numPending === 0 && !group.offsets.hasOffsets) this.shard.markDead(group);
      onDone(ErrorCode.NONE);
    });
  }
}

function refKey(p: PartitionRef): string {
  return `${p.topic}\u0000${p.partition}`;
}
