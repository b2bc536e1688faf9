import type { CompactionStats } from '../partition-log';
import type { IoQueue } from './io-queue';
import type { Segment } from './segment';
import { cleanSegments, type CleanerContext } from './segment-cleaner';
import type { SegmentWriter } from './segment-writer';

/** What a FileLog lends its compaction. */
export interface SegmentCompactionContext {
  dir: string;
  segmentBytes: number;
  io: IoQueue;
  writer: SegmentWriter;
  /** The log's segments, changed in place. */
  segments: () => Segment[];
  /** The offset compaction may reach for a request up to `upToOffset` (only flushed data is compacted). */
  limit: (upToOffset: number) => number;
  /** Throws when the log takes no writes (failed or closed): a compaction is one. */
  checkWritable: () => void;
}

/**
 * A FileLog's compaction: one run at a time over its closed segments (`cleanSegments`, the shared
 * rule), and where the part not compacted yet starts (`firstDirtyOffset`, kept in the clean-close index).
 */
export class SegmentCompaction {
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: SegmentCompactionContext,
    /** Where the segments not yet compacted start. */
    public firstDirtyOffset: number,
  ) {}

  /** Queues a run; the limit is taken when it starts, not when it was asked for. */
  compact(upToOffset: number, now: number, tombstoneRetentionMs: number): Promise<CompactionStats> {
    const run = this.running.then(() => this.compactNow(upToOffset, now, tombstoneRetentionMs));
    this.running = run.catch(noop);
    return run;
  }

  /** Resolves once no run is under way (for close and abort). */
  idle(): Promise<unknown> {
    return this.running;
  }

  /** The log was cut at `offset`: what lies past it is new, not yet compacted. */
  truncated(offset: number): void {
    this.firstDirtyOffset = Math.min(this.firstDirtyOffset, offset);
  }

  /** The share of the compactable segments' bytes not compacted yet. */
  dirtyRatio(upToOffset: number): number {
    const segments = this.ctx.segments();
    const limit = this.ctx.limit(upToOffset);
    let total = 0;
    let dirty = 0;
    for (let s = 0; s + 1 < segments.length && segments[s + 1].baseOffset <= limit; s++) {
      total += segments[s].size;
      if (segments[s].baseOffset >= this.firstDirtyOffset) dirty += segments[s].size;
    }
    return total === 0 ? 0 : dirty / total;
  }

  private async compactNow(upToOffset: number, now: number, tombstoneRetentionMs: number): Promise<CompactionStats> {
    const { ctx } = this;
    ctx.checkWritable();
    const context: CleanerContext = {
      dir: ctx.dir,
      segmentBytes: ctx.segmentBytes,
      io: ctx.io,
      segments: ctx.segments,
      replace: (old, replacement) => {
        const segments = ctx.segments();
        const at = segments.indexOf(old[0]);
        segments.splice(at, old.length, replacement);
        ctx.writer.replaced(old);
      },
    };
    const { stats, cleanedUpTo } = await cleanSegments(context, ctx.limit(upToOffset), now, tombstoneRetentionMs);
    this.firstDirtyOffset = Math.max(this.firstDirtyOffset, cleanedUpTo);
    return stats;
  }
}

function noop(): void {}
