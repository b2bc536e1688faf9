import { ErrorCode } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';
import type { OffsetAndMetadata, StagedWrite } from '../group/group-offsets';
import { groupTombstone, offsetCommitRecord, offsetTombstone } from '../records/record-builders';
import type { GroupRegistry } from '../group/group-registry';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { ShardEnv } from '../context/shard-env';
import { offsetWriteError } from '../context/store-errors';

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
 * deletion is visible before it is durable (docs/guarantees.md). Each method returns the result the runtime
 * appends: its response is the error code (NONE, or the client-facing mapping of the store's error).
 * The committed value is installed by `GroupOffsets.applyRecord`, the function the loader replays with.
 */
export class OffsetWrites {
  constructor(
    private readonly groups: GroupRegistry,
    private readonly env: Pick<ShardEnv, 'clock' | 'metrics' | 'topics'>,
  ) {}

  /** One OffsetCommit record per entry. */
  commit(group: ClassicGroup, entries: OffsetEntry[]): CoordinatorResult<number> {
    const staged = entries.map((e) => group.offsets.stage(e.topic, e.partition));
    const records = entries.map((e) => offsetCommitRecord(group.groupId, e.topic, e.partition, e.value));
    return {
      records,
      response: ErrorCode.NONE,
      onFailure: (outcome) => offsetWriteError(outcome.storeError),
      appendFuture: (outcome) => {
        if (!outcome.ok) {
          entries.forEach((e, i) => group.offsets.onFailed(e.topic, e.partition, staged[i]));
          return;
        }
        if (!group.is('Dead')) {
          entries.forEach((e, i) =>
            group.offsets.onCommitted(e.topic, e.partition, staged[i], e.value, outcome.baseOffset + i),
          );
          for (const e of entries) {
            const logEndOffset = this.env.topics.partitionOffsets(e.topic, e.partition)?.endOffset ?? null;
            group.lagWindows.record(e.topic, e.partition, e.value.commitTimestamp, e.value.offset, logEndOffset);
          }
        }
        this.env.metrics.onOffsetCommit?.(entries.length);
      },
    };
  }

  /**
   * Appends tombstones for `partitions` (Kafka's `cleanupGroupMetadata`). When this leaves an Empty group
   * with no offsets (or `deleteGroup` asks for it: DeleteGroups), the group dies with them: its own
   * tombstone is written too (only if it was ever persisted, i.e. generation > 0) and it goes Dead once
   * the tombstones are committed, if it is still Empty and without offsets then.
   */
  delete(group: ClassicGroup, partitions: PartitionRef[], deleteGroup: boolean): CoordinatorResult<number> {
    const groupDies = deleteGroup || this.leavesUnused(group, partitions);
    const now = this.env.clock.now();
    const staged: StagedWrite[] = partitions.map((p) => group.offsets.stage(p.topic, p.partition));
    const records = partitions.map((p) => offsetTombstone(group.groupId, p.topic, p.partition, now));
    if (groupDies && group.generationId > 0) records.push(groupTombstone(group.groupId, now));
    if (records.length === 0) {
      if (groupDies) this.groups.markDead(group);
      return { records, response: ErrorCode.NONE };
    }
    return {
      records,
      response: ErrorCode.NONE,
      onFailure: (outcome) => offsetWriteError(outcome.storeError),
      appendFuture: (outcome) => {
        if (!outcome.ok) {
          partitions.forEach((p, i) => group.offsets.onFailed(p.topic, p.partition, staged[i]));
          return;
        }
        partitions.forEach((p, i) =>
          group.offsets.onCommitted(p.topic, p.partition, staged[i], null, outcome.baseOffset + i),
        );
        if (this.groups.owns(group) && group.is('Empty') && group.numPending === 0 && !group.offsets.hasOffsets)
          this.groups.markDead(group);
      },
    };
  }

  /**
   * Whether deleting `partitions` leaves `group` Empty, without offsets and without writes in flight:
   * the group then dies with their tombstones (`delete`).
   */
  leavesUnused(group: ClassicGroup, partitions: PartitionRef[]): boolean {
    const deleting = new Set(partitions.map((p) => refKey(p)));
    return (
      group.is('Empty') &&
      group.numPending === 0 &&
      group.offsets.stagedPartitions().length === 0 &&
      group.offsets.all().every((o) => deleting.has(refKey(o)))
    );
  }
}

function refKey(p: PartitionRef): string {
  return `${p.topic}\u0000${p.partition}`;
}
