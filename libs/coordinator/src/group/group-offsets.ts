import type { CommittedOffset, OffsetAndMetadata } from './offset-values';
import { TopicOffsets } from './topic-offsets';

export type { CommittedOffset, OffsetAndMetadata } from './offset-values';

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  value: CommittedOffset;
}

/** Identifies one staged write of one partition's offset, so only that write can clear its staging. */
export type StagedWrite = { readonly id: number };
let nextStagedId = 0;

/**
 * The offsets of one group, split as Kafka splits them (`offsets` / `pendingOffsetCommits`): committed
 * offsets are what readers see; a staged write (an OffsetCommit or a tombstone whose record is not yet
 * below the high watermark) only marks the partition as unstable until its record commits or fails.
 */
export class GroupOffsets {
  /** By topic, column-wise (`TopicOffsets`): no object per committed partition. */
  private readonly committed = new Map<string, TopicOffsets>();
  /** Made on the first staging: most groups on a big node are idle, and an empty Map costs ~200 bytes each. */
  private staged: Map<string, Map<number, StagedWrite>> | undefined;

  /** A copy of the committed offset (changing it changes nothing held). */
  get(topic: string, partition: number): CommittedOffset | undefined {
    return this.committed.get(topic)?.get(partition);
  }

  has(topic: string, partition: number): boolean {
    return this.committed.get(topic)?.has(partition) ?? false;
  }

  /** Every committed offset, by topic then partition. */
  all(): TopicPartitionOffset[] {
    const out: TopicPartitionOffset[] = [];
    for (const topic of [...this.committed.keys()].sort()) {
      const ofTopic: TopicPartitionOffset[] = [];
      this.committed.get(topic)!.forEach((partition, value) => ofTopic.push({ topic, partition, value }));
      for (const entry of ofTopic.sort((a, b) => a.partition - b.partition)) out.push(entry);
    }
    return out;
  }

  /**
   * Every committed offset in no particular order, without copying: what a scan of every group (lag,
   * metrics) reads — the offset and its commit time, not an object per partition.
   */
  forEachCommitted(visit: (topic: string, partition: number, offset: number, commitTimestamp: number) => void): void {
    for (const [topic, byPartition] of this.committed)
      byPartition.forEachOffset((partition, offset, commitTimestamp) =>
        visit(topic, partition, offset, commitTimestamp),
      );
  }

  /** At least one committed offset (cheaper than `size > 0`). */
  get hasCommitted(): boolean {
    return this.committed.size > 0;
  }

  get size(): number {
    let n = 0;
    for (const byPartition of this.committed.values()) n += byPartition.size;
    return n;
  }

  /** Kafka's `hasOffsets`: committed or still being written. */
  get hasOffsets(): boolean {
    return this.committed.size > 0 || (this.staged !== undefined && this.staged.size > 0);
  }

  isStaged(topic: string, partition: number): boolean {
    return this.staged?.get(topic)?.has(partition) ?? false;
  }

  /** Partitions with a write in flight. */
  stagedPartitions(): { topic: string; partition: number }[] {
    const out: { topic: string; partition: number }[] = [];
    for (const [topic, byPartition] of this.staged ?? [])
      for (const partition of byPartition.keys()) out.push({ topic, partition });
    return out;
  }

  /** Marks a write of this partition's offset as in flight; the newest staging replaces older ones. */
  stage(topic: string, partition: number): StagedWrite {
    const write: StagedWrite = { id: nextStagedId++ };
    let byPartition = (this.staged ??= new Map()).get(topic);
    if (!byPartition) this.staged.set(topic, (byPartition = new Map()));
    byPartition.set(partition, write);
    return write;
  }

  /**
   * The record of `write` committed at `logOffset`: an offset replaces an older one, a tombstone (null)
   * removes an older one; anything newer already installed is kept.
   */
  onCommitted(
    topic: string,
    partition: number,
    write: StagedWrite,
    value: OffsetAndMetadata | null,
    logOffset: number,
  ): void {
    this.applyRecord(topic, partition, value, logOffset);
    this.unstage(topic, partition, write);
  }

  onFailed(topic: string, partition: number, write: StagedWrite): void {
    this.unstage(topic, partition, write);
  }

  /** Replay and commit both land here: the record at `logOffset` wins over anything older. */
  applyRecord(topic: string, partition: number, value: OffsetAndMetadata | null, logOffset: number): void {
    if (value === null) {
      this.remove(topic, partition, logOffset);
      return;
    }
    this.install(topic, partition, {
      offset: value.offset,
      leaderEpoch: value.leaderEpoch,
      metadata: value.metadata,
      commitTimestamp: value.commitTimestamp,
      expireTimestamp: value.expireTimestamp,
      logOffset,
    });
  }

  /** `applyRecord` of an offset given as an entry; its fields are copied, so the loader decodes every record into one. */
  install(topic: string, partition: number, entry: CommittedOffset): void {
    let byPartition = this.committed.get(topic);
    if (!byPartition) this.committed.set(topic, (byPartition = new TopicOffsets()));
    byPartition.set(partition, entry);
  }

  /** `applyRecord` of a tombstone. */
  remove(topic: string, partition: number, logOffset: number): void {
    const byPartition = this.committed.get(topic);
    if (!byPartition) return;
    byPartition.delete(partition, logOffset);
    if (byPartition.size === 0) this.committed.delete(topic);
  }

  /** Every in-flight write is abandoned (the group is being unloaded). */
  clearStaged(): void {
    this.staged = undefined;
  }

  private unstage(topic: string, partition: number, write: StagedWrite): void {
    const byPartition = this.staged?.get(topic);
    if (byPartition?.get(partition) !== write) return;
    byPartition.delete(partition);
    if (byPartition.size > 0) return;
    this.staged!.delete(topic);
    if (this.staged!.size === 0) this.staged = undefined;
  }
}
