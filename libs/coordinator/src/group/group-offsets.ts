/** What a committed offset holds (Kafka's OffsetAndMetadata). */
export interface OffsetAndMetadata {
  offset: number;
  /** -1 when the committer did not know the leader epoch. */
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
  /** Legacy per-commit expiry (OffsetCommitValue v1); null under KIP-211 rules. */
  expireTimestamp: number | null;
}

/** A committed offset with the log position of its record: a later record always wins. */
export interface CommittedOffset extends OffsetAndMetadata {
  logOffset: number;
}

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
  private readonly committed = new Map<string, Map<number, CommittedOffset>>();
  /** Made on the first staging: most groups on a big node are idle, and an empty Map costs ~200 bytes each. */
  private staged: Map<string, Map<number, StagedWrite>> | undefined;

  get(topic: string, partition: number): CommittedOffset | undefined {
    return this.committed.get(topic)?.get(partition);
  }

  /** Every committed offset, by topic then partition. */
  all(): TopicPartitionOffset[] {
    const out: TopicPartitionOffset[] = [];
    for (const topic of [...this.committed.keys()].sort()) {
      const byPartition = this.committed.get(topic)!;
      for (const partition of [...byPartition.keys()].sort((a, b) => a - b)) {
        out.push({ topic, partition, value: byPartition.get(partition)! });
      }
    }
    return out;
  }

  /** Every committed offset in no particular order, without copying: what a scan of every group (metrics) reads. */
  forEachCommitted(visit: (topic: string, partition: number, value: CommittedOffset) => void): void {
    for (const [topic, byPartition] of this.committed) for (const [partition, value] of byPartition) visit(topic, partition, value);
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
    for (const [topic, byPartition] of this.staged ?? []) for (const partition of byPartition.keys()) out.push({ topic, partition });
    return out;
  }

  /** Marks a write of this partition's offset as in flight; the newest staging replaces older ones. */
  stage(topic: string, partition: number): StagedWrite {
    const write: StagedWrite = { id: nextStagedId++ };
    mapFor((this.staged ??= new Map()), topic).set(partition, write);
    return write;
  }

  /**
   * The record of `write` committed at `logOffset`: an offset replaces an older one, a tombstone (null)
   * removes an older one; anything newer already installed is kept.
   */
  onCommitted(topic: string, partition: number, write: StagedWrite, value: OffsetAndMetadata | null, logOffset: number): void {
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
    // Field by field rather than a spread: one shape for every entry, the shape the loader decodes into.
    this.install(topic, partition, {
      offset: value.offset,
      leaderEpoch: value.leaderEpoch,
      metadata: value.metadata,
      commitTimestamp: value.commitTimestamp,
      expireTimestamp: value.expireTimestamp,
      logOffset,
    });
  }

  /** `applyRecord` of an offset whose entry the caller made and hands over (the loader's decode). */
  install(topic: string, partition: number, entry: CommittedOffset): void {
    const byPartition = mapFor(this.committed, topic);
    const current = byPartition.get(partition);
    if (current && current.logOffset > entry.logOffset) return;
    byPartition.set(partition, entry);
  }

  /** `applyRecord` of a tombstone. */
  remove(topic: string, partition: number, logOffset: number): void {
    const byPartition = this.committed.get(topic);
    const current = byPartition?.get(partition);
    if (!byPartition || !current || current.logOffset > logOffset) return;
    byPartition.delete(partition);
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
    if (byPartition.size === 0) this.staged!.delete(topic);
  }
}

function mapFor<V>(outer: Map<string, Map<number, V>>, topic: string): Map<number, V> {
  let inner = outer.get(topic);
  if (!inner) outer.set(topic, (inner = new Map()));
  return inner;
}
