import type { CheckpointStorage } from '../storage/checkpoint-storage.port';
import { formatEpochCheckpoint, parseEpochCheckpoint } from './epoch-checkpoint-format';
import { UNDEFINED_EPOCH_END, type EpochEndOffset, type EpochEntry } from './epoch-entry';

/**
 * The leader-epoch cache of one replica (Kafka's LeaderEpochFileCache): epoch → first
 * offset written in it, strictly increasing in both fields (I3). Every change is written through to
 * the checkpoint at once, so the entry of a new epoch is durable before the leader appends in it.
 */
export class LeaderEpochCache {
  private entries: EpochEntry[];

  constructor(
    private readonly storage: CheckpointStorage,
    private readonly checkpointName: string,
  ) {
    const text = storage.read(checkpointName);
    this.entries = text === null ? [] : parseEpochCheckpoint(text);
  }

  /** A copy of the entries, oldest first. */
  list(): EpochEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  latestEpoch(): number {
    return this.entries.length === 0 ? -1 : this.entries[this.entries.length - 1].epoch;
  }

  latestEntry(): EpochEntry | undefined {
    const last = this.entries[this.entries.length - 1];
    return last ? { ...last } : undefined;
  }

  /**
   * Records that `epoch` starts at `startOffset`. A no-op when the latest entry already has this epoch
   * and starts no later; otherwise every tail entry with a greater-or-equal epoch or start is removed
   * first, so the cache stays strictly increasing.
   */
  assign(epoch: number, startOffset: number): void {
    const last = this.entries[this.entries.length - 1];
    if (last && last.epoch === epoch && startOffset >= last.startOffset) return;
    while (this.entries.length > 0) {
      const tail = this.entries[this.entries.length - 1];
      if (tail.epoch >= epoch || tail.startOffset >= startOffset) this.entries.pop();
      else break;
    }
    this.entries.push({ epoch, startOffset });
    this.persist();
  }

  /** Removes entries starting at or after `offset` — on every truncation, even when no record goes (I3). */
  truncateFromEnd(offset: number): void {
    const before = this.entries.length;
    while (this.entries.length > 0 && this.entries[this.entries.length - 1].startOffset >= offset) this.entries.pop();
    if (this.entries.length !== before) this.persist();
  }

  /**
   * The largest epoch <= `requestedEpoch` and the offset where it ends (the start of the next known
   * epoch, or `logEndOffset` for the latest one) — Kafka's `endOffsetFor`.
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: number): EpochEndOffset {
    if (requestedEpoch < 0 || this.entries.length === 0) return UNDEFINED_EPOCH_END;
    if (requestedEpoch === this.latestEpoch()) return { epoch: requestedEpoch, endOffset: logEndOffset };
    const higherIndex = this.entries.findIndex((e) => e.epoch > requestedEpoch);
    if (higherIndex < 0) return UNDEFINED_EPOCH_END;
    const higher = this.entries[higherIndex];
    if (higherIndex === 0) return { epoch: requestedEpoch, endOffset: higher.startOffset };
    return { epoch: this.entries[higherIndex - 1].epoch, endOffset: higher.startOffset };
  }

  /** The epoch a record at `offset` was written in according to the cache (-1 before the first entry). */
  epochAt(offset: number): number {
    let epoch = -1;
    for (const e of this.entries) {
      if (e.startOffset > offset) break;
      epoch = e.epoch;
    }
    return epoch;
  }

  private persist(): void {
    this.storage.write(this.checkpointName, formatEpochCheckpoint(this.entries));
  }
}
