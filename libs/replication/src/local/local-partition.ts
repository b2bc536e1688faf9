import type { FileLog } from '../log/file/file-log';
import { CommitWaiters } from '../partition/commit-waiters';
import type { Clock } from '../time/clock';

/** One `__consumer_offsets` partition of the embedded store: its log, HW and pending commits. */
export class LocalPartition {
  leading = true;
  /** Committed below this: flushed (always) or written to the OS (replicated). Never goes down. */
  highWatermark: number;
  readonly waiters: CommitWaiters;

  constructor(
    readonly partition: number,
    readonly log: FileLog,
    readonly leaderEpoch: number,
    clock: Clock,
  ) {
    // Recovery fsyncs what it keeps, so everything from earlier runs is committed.
    this.highWatermark = log.logEndOffset;
    this.waiters = new CommitWaiters(clock);
  }

  /** The HW moved to `offset` (if higher): completes the commits it passed. */
  advanceTo(offset: number): void {
    if (!this.leading || offset <= this.highWatermark) return;
    this.highWatermark = Math.min(offset, this.log.logEndOffset);
    this.waiters.complete(this.leaderEpoch, this.highWatermark, true);
  }
}
