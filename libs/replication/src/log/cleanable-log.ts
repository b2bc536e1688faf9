import type { PartitionLog } from './partition-log';

/** A log the LogCleaner can drive: it reports how much of its cleanable part is new since the last cleaning. */
export interface CleanableLog extends PartitionLog {
  /**
   * Bytes below `min(upToOffset, flushed offset)` written since the last compaction, as a share of
   * all bytes there (Kafka's `min.cleanable.dirty.ratio` input). 0 when there is nothing to clean.
   */
  dirtyRatio(upToOffset: number): number;
}
