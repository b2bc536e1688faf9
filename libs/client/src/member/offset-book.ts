import type { OffsetCommitTopic } from '@cohort/protocol';
import type { ProcessedOffset } from './member-events';
import { partitionKey, type PartitionSet } from './partition-set';

interface Entry extends ProcessedOffset {
  /** The offset last acknowledged as committed (or -1). */
  committed: number;
}

/**
 * What the application marked as processed, per partition, and what of it the coordinator has
 * acknowledged, so auto-commit sends only what moved. Marks for partitions the member does not own are
 * refused: they may already belong to someone else, and committing them would rewind the new owner.
 */
export class OffsetBook {
  private readonly entries = new Map<string, Entry>();

  mark(offset: ProcessedOffset, owned: PartitionSet): boolean {
    if (!owned.has(offset.topic, offset.partition)) return false;
    const key = partitionKey(offset.topic, offset.partition);
    const entry = this.entries.get(key);
    if (entry) {
      entry.offset = offset.offset;
      entry.metadata = offset.metadata ?? null;
    } else {
      this.entries.set(key, {
        topic: offset.topic,
        partition: offset.partition,
        offset: offset.offset,
        metadata: offset.metadata ?? null,
        committed: -1,
      });
    }
    return true;
  }

  /** Marked offsets not yet acknowledged, limited to `within` when given. */
  uncommitted(within?: PartitionSet): ProcessedOffset[] {
    const out: ProcessedOffset[] = [];
    for (const entry of this.entries.values()) {
      if (entry.offset === entry.committed) continue;
      if (within && !within.has(entry.topic, entry.partition)) continue;
      out.push({ topic: entry.topic, partition: entry.partition, offset: entry.offset, metadata: entry.metadata });
    }
    return out;
  }

  /** The coordinator acknowledged these (commits are sent one at a time, so the last ack is the latest). */
  acknowledged(offsets: ProcessedOffset[]): void {
    for (const offset of offsets) {
      const entry = this.entries.get(partitionKey(offset.topic, offset.partition));
      if (entry) entry.committed = offset.offset;
    }
  }

  /** Forget partitions the member gave up (after their commit) or lost (without one). */
  forget(partitions: PartitionSet): void {
    for (const [key, entry] of this.entries) if (partitions.has(entry.topic, entry.partition)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** `[{ topic, partition, offset }]` → OffsetCommit's `topics`. */
export function toCommitTopics(offsets: ProcessedOffset[]): OffsetCommitTopic[] {
  const byTopic = new Map<string, OffsetCommitTopic>();
  for (const o of offsets) {
    let topic = byTopic.get(o.topic);
    if (!topic) byTopic.set(o.topic, (topic = { name: o.topic, partitions: [] }));
    topic.partitions.push({
      partitionIndex: o.partition,
      committedOffset: o.offset,
      ...(o.metadata != null ? { committedMetadata: o.metadata } : {}),
    });
  }
  return [...byTopic.values()];
}
